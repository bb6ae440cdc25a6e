import { api } from "/console/api.js";
import { lineChart } from "/console/charts.js";
import { h, percent, rate, show, table } from "/console/dom.js";

export async function overviewPage(view) {
  const data = await api("GET", "/v1/stats/overview?days=14");
  const installs = data.installations;
  const days = data.days.map((entry) => entry.day);
  const card = (label, value, note) =>
    h("div", { class: "card" }, h("div", { class: "muted" }, label), h("div", { class: "value" }, value),
      note ? h("div", { class: "muted" }, note) : null);
  // The server defines the rate (opens of the messages delivered in the window over those deliveries), so the
  // console, the CLI and the API show the same figure.
  const { sent, delivered, opened, open_rate: openRate } = data.totals;
  const failures = Object.entries(data.failures_by_reason).sort((a, b) => b[1] - a[1]);
  show(view,
    h("h1", {}, "Overview"),
    h("div", { class: "cards" },
      card("Installations", installs.total, `${installs.with_token} with a push token`),
      card("Notification consent", percent(installs.notification_consent, installs.total),
        `${installs.notification_consent} installations`),
      card("Sent, 14 days", sent, `${delivered} delivered`),
      card("Open rate, 14 days", rate(openRate),
        `${opened} of ${delivered} deliveries opened`)),
    h("h2", {}, "Installations by platform"),
    table(["Platform", "Installations", "Share"],
      Object.entries(installs.by_platform).map(([name, count]) => [name, count, percent(count, installs.total)])),
    h("h2", {}, "Notification permission"),
    table(["Permission", "Installations", "Share"],
      Object.entries(installs.by_permission).map(([name, count]) => [name, count, percent(count, installs.total)])),
    h("h2", {}, "Sending"),
    lineChart({
      title: "Messages sent and delivered per day", days,
      series: [
        { name: "Sent", values: data.days.map((entry) => entry.sent) },
        { name: "Delivered", values: data.days.map((entry) => entry.delivered) },
        { name: "Failed", values: data.days.map((entry) => entry.failed) },
      ],
    }),
    lineChart({
      title: "Open rate per day (%)", days, maximum: 100, format: (value) => `${value}`,
      series: [{
        name: "Opened / delivered",
        values: data.days.map((entry) => (entry.open_rate === null ? 0 : Math.round(entry.open_rate * 1000) / 10)),
      }],
    }),
    h("h2", {}, "Recent failures by reason"),
    failures.length ? table(["Reason", "Failures"], failures) : h("p", { class: "muted" }, "No failures in 14 days."));
}

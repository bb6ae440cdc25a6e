import { api } from "/console/api.js";
import { field, h, show, table, time } from "/console/dom.js";

export async function devicesPage(view) {
  const input = h("input", { type: "search", name: "q", placeholder: "installation id, user id, token prefix or tag" });
  const results = h("div", { "aria-live": "polite" });
  const form = h("form", { role: "search" },
    field("Find a device", input),
    h("button", { type: "submit", class: "primary" }, "Search"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const query = input.value.trim();
    if (!query) return;
    try {
      const found = await api("GET", `/v1/devices/search?q=${encodeURIComponent(query)}`);
      show(results, found.installations.length === 0 ? h("p", {}, "No device matches.") :
        table(["Installation", "Platform", "User", "Matched on", "Updated"],
          found.installations.map((device) => [
            h("a", { href: `#/devices/${encodeURIComponent(device.installation_id)}` }, device.installation_id),
            device.platform, device.user_id ?? "", device.matched, time(device.updated_at),
          ])));
    } catch (error) {
      show(results, h("p", { class: "error", role: "alert" }, error.message));
    }
  });
  show(view, h("h1", {}, "Devices"), form, results);
  input.focus();
}

export async function devicePage(view, installationID) {
  const data = await api("GET", `/v1/installations/${encodeURIComponent(installationID)}/timeline?limit=100`);
  const device = data.installation;
  const yesNo = (value) => (value === null ? "unknown" : value ? "yes" : "no");
  const timeline = [
    ...data.events.map((event) => ({
      at: event.occurred_at, what: `event: ${event.type}`, message: event.message_id ?? "",
      detail: [event.action_id, event.value].filter(Boolean).join(" "),
    })),
    ...data.deliveries.map((delivery) => ({
      at: delivery.updated_at, what: `delivery: ${delivery.state}`, message: delivery.message_id,
      detail: [delivery.reason, `${delivery.attempts} attempt(s) via ${delivery.token_type}`].filter(Boolean).join(" · "),
    })),
  ].sort((a, b) => b.at - a.at);
  show(view,
    h("p", {}, h("a", { href: "#/devices" }, "← Devices")),
    h("h1", {}, `Device ${device.installation_id}`),
    h("div", { class: "split" },
      h("section", { "aria-labelledby": "tokens-heading" },
        h("h2", { id: "tokens-heading" }, "Tokens"),
        table(["Kind", "Token (masked)"], [
          ["APNs", device.apns_token ?? "—"], ["VoIP", device.voip_token ?? "—"], ["FCM", device.fcm_token ?? "—"],
        ]),
        h("h2", {}, "Consents"),
        table(["Consent", "Given"], [
          ["Notifications", yesNo(device.consents.notifications)], ["Ads", yesNo(device.consents.ads)],
          ["Night-time ads", yesNo(device.consents.night_ads)], ["Permission", device.permission ?? "unknown"],
        ])),
      h("section", {},
        h("h2", {}, "Context"),
        table(["Field", "Value"], [
          ["Platform", device.platform], ["User", device.user_id ?? "—"], ["Time zone", device.timezone ?? "—"],
          ["Language", device.language ?? "—"], ["Locale", device.locale ?? "—"],
          ["App version", device.app_version ?? "—"], ["OS", `${device.os_name ?? ""} ${device.os_version ?? ""}`],
          ["Model", device.device_model ?? "—"], ["Environment", device.environment ?? "—"],
          ["Registered", time(device.created_at)],
        ]),
        h("h2", {}, "Tags"),
        h("p", {}, data.tags.length ? data.tags.join(", ") : "No tags."))),
    h("h2", {}, "Timeline"),
    timeline.length === 0 ? h("p", {}, "Nothing yet.") :
      table(["When", "What", "Message", "Detail"], timeline.map((entry) => [
        time(entry.at), entry.what,
        entry.message ? h("a", { href: `#/messages/${encodeURIComponent(entry.message)}` }, entry.message) : "",
        entry.detail,
      ]), "Events and deliveries, newest first"));
}

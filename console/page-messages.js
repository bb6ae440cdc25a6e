import { api, can } from "/console/api.js";
import { setPageTimer } from "/console/app.js";
import { h, percent, rate, show, table, time } from "/console/dom.js";

export async function messagesPage(view) {
  const stateFilter = h("select", { id: "message-state" },
    ["", "scheduled", "resolving", "sending", "done", "cancelled"].map((state) => h("option", { value: state }, state || "any")));
  const list = h("div", { "aria-live": "polite" });
  let cursor = null;
  const shown = [];

  function render() {
    const rows = shown.filter((message) => !stateFilter.value || message.state === stateFilter.value);
    show(list, table(["Created", "Message", "State", "Sends at", "Targets", "Sent", "Failed", "Skipped", "Cancelled"], rows.map((message) => [
      time(message.created_at),
      h("a", { href: `#/messages/${encodeURIComponent(message.message_id)}` },
        typeof message.title === "string" ? message.title : message.message_id),
      message.state, message.state === "scheduled" ? time(message.resolve_at) : "", message.counts.targets, message.counts.sent, message.counts.failed, message.counts.skipped,
      message.counts.cancelled ?? 0,
    ])), cursor ? h("button", { type: "button", onclick: more }, "Older messages") : null);
  }

  async function more() {
    const page = await api("GET", `/v1/stats/messages?limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    shown.push(...page.messages);
    cursor = page.next_cursor;
    render();
  }

  stateFilter.addEventListener("change", render);
  show(view, h("h1", {}, "Messages"),
    h("label", { for: "message-state" }, "State"), stateFilter,
    can("editor") ? h("p", {}, h("a", { href: "#/compose" }, "Compose a new message")) : null, list);
  await more();
}

export async function messagePage(view, messageID) {
  const status = h("p", { class: "muted", "aria-live": "polite" });
  const body = h("div");

  async function refresh() {
    const message = await api("GET", `/v1/messages/${encodeURIComponent(messageID)}`);
    const counts = message.counts;
    const funnel = message.funnel;
    // Distinct installations per stage, so that two opens on one phone count once. Opened counts an opening
    // through the body or through a button that opens the app; actions count every button, opening the app or
    // not, so they are a share of delivered, not of opened (the server's rates, docs/campaigns.md).
    const stage = (name) => funnel?.unique?.[name] ?? 0;
    const delivered = stage("delivered");
    const stages = [
      ["Targets", counts.targets, "", ""],
      ["Sent", counts.sent, percent(counts.sent, counts.targets), "of targets"],
      ...(counts.cancelled ? [["Cancelled", counts.cancelled, percent(counts.cancelled, counts.targets), "of targets"]] : []),
      ["Delivered", delivered, percent(delivered, counts.sent), "of sent"],
      ["Opened", stage("opened"), rate(funnel?.rates?.open_rate), "of delivered"],
      ["Actions", stage("actions"), rate(funnel?.rates?.action_rate), "of delivered"],
    ];
    const peak = Math.max(1, counts.targets);
    const bars = stages.map(([name, value, share, of]) => {
      const bar = h("div", { class: "bar" });
      bar.style.width = `${(100 * value) / peak}%`;
      return [name, bar, String(value), share, of];
    });
    const reasons = (byReason) => Object.entries(byReason ?? {}).sort((a, b) => b[1] - a[1]);
    const failed = reasons(counts.failed_by_reason);
    const skipped = reasons(counts.skipped_by_reason);
    // Per variant (with the open-rate difference from the first and its 95% interval) and per language.
    const groupRows = (groups, key) => (groups ?? []).map((group) => {
      const unique = group.unique ?? {};
      const difference = group.open_rate_difference;
      return [group[key], group.targets, group.sent ?? 0, unique.delivered ?? 0, unique.opened ?? 0,
        rate(group.rates?.open_rate),
        ...(key === "variant" ? [difference ? `${(100 * difference.difference).toFixed(1)} pts ` +
          `(${(100 * difference.ci95_low).toFixed(1)} to ${(100 * difference.ci95_high).toFixed(1)})` +
          (difference.significant ? ", significant" : ", not significant") : ""] : [])];
    });
    // Conversions per variant, the control group included: the rate with its 95% Wilson interval, and the
    // difference from the control group (or the first variant) with its 95% interval.
    const points = (value) => `${value >= 0 ? "+" : ""}${(100 * value).toFixed(1)}`;
    const goal = funnel?.conversion;
    const span = (seconds) => [[86400, "d"], [3600, "h"], [60, "min"]].map(([length, unit]) =>
      seconds % length === 0 ? `${seconds / length} ${unit}` : null).find(Boolean) ?? `${seconds} s`;
    const conversionRows = (funnel?.variants ?? []).filter((group) => group.conversions).map((group) => {
      const counts = group.conversions;
      const difference = counts.difference;
      return [group.variant, counts.recipients, counts.converted, rate(counts.rate),
        counts.ci95_low === null ? "–" : `${rate(counts.ci95_low)} to ${rate(counts.ci95_high)}`,
        difference ? `${points(difference.difference)} pts versus ${difference.versus} ` +
          `(${points(difference.ci95_low)} to ${points(difference.ci95_high)})` +
          (difference.significant ? ", significant" : ", not significant") : ""];
    });
    const conversions = goal && conversionRows.length ? h("section", { id: "variant-conversions" },
      h("h2", {}, `Conversions: ${goal.event} within ${span(goal.within_seconds)} of ${goal.from}`),
      table(["Variant", "Recipients", "Converted", "Rate", "95% interval", "Difference (95% CI)"], conversionRows))
      : null;
    const breakdown = (groups, key, heading, id) => groups?.length ? h("section", { id },
      h("h2", {}, heading),
      table([key === "variant" ? "Variant" : "Language", "Targets", "Sent", "Delivered", "Opened", "Open rate",
        ...(key === "variant" ? ["Versus the first (95% CI)"] : [])], groupRows(groups, key))) : null;
    show(body,
      h("section", { class: "funnel", "aria-labelledby": "funnel-heading" },
        h("h2", { id: "funnel-heading" }, "Funnel"),
        table(["Stage", "", "Count", "Rate", "Of"], bars)),
      breakdown(funnel?.variants, "variant", "By variant", "variant-funnels"),
      conversions,
      breakdown(funnel?.languages, "language", "By language", "language-funnels"),
      h("h2", {}, "Failures by reason"),
      failed.length ? table(["Reason", "Count"], failed) : h("p", { class: "muted" }, "None."),
      h("h2", {}, "Skipped by reason"),
      skipped.length ? table(["Reason", "Count"], skipped) : h("p", { class: "muted" }, "None."),
      localSchedule(message.local_schedule), winner(message));
    const schedule = message.state === "scheduled" && message.resolve_at ?
      ` · sends from ${time(message.resolve_at)}` : "";
    status.textContent = `State: ${message.state} · created ${time(message.created_at)}${schedule}` +
      (message.state === "done" ? ` · finished ${time(message.finished_at)}` : " · updating every 2 s");
    status.dataset.state = message.state;
    cancel.hidden = !can("editor") || message.state === "done" || message.state === "cancelled";
    return message;
  }

  const cancel = h("button", { type: "button", class: "danger", hidden: true, onclick: async () => {
    if (!confirm("Cancel what is not sent yet?")) return;
    try {
      await api("DELETE", `/v1/messages/${encodeURIComponent(messageID)}`);
      await refresh();
    } catch (error) {
      status.textContent = error.message;
    }
  } }, "Cancel sending");
  const duplicate = can("editor") ? h("a", { href: `#/compose?from=${encodeURIComponent(messageID)}` },
    "Duplicate as new") : null;
  show(view, h("p", {}, h("a", { href: "#/messages" }, "← Messages")), h("h1", {}, `Message ${messageID}`),
    status, h("div", { class: "row" }, cancel, duplicate), body);
  await refresh();
  // Counts move while the fan-out sends and devices report back: poll until the page is left.
  setPageTimer(setInterval(() => refresh().catch(() => {}), 2000));
}

// A local-time message's due times: each installation's delivery is due at the local time in its own zone, so
// the send goes out zone by zone over about a day; each row is one due instant and its UTC offset.
function localSchedule(schedule) {
  if (!schedule) return null;
  const next = schedule.next_due_at ? `Next due ${time(schedule.next_due_at)}` : "Nothing waiting";
  return h("section", { id: "local-schedule" },
    h("h2", {}, `Local time ${schedule.local_time}`),
    h("p", { class: "muted" }, `${next} · ${schedule.waiting} waiting`),
    schedule.zones.length ? table(["Due", "UTC offset", "Waiting", "Sent", "Failed", "Skipped"],
      schedule.zones.map((zone) => [time(zone.due_at), zone.utc_offset ?? "–", zone.waiting + zone.in_flight,
        zone.sent, zone.failed, zone.skipped])) : h("p", { class: "muted" }, "Not resolved yet."));
}

// A split test that picks its winner: where its decision stands and, once decided, the numbers it was made on
// (each variant's rate with its interval at the test's confidence) and the follow-up sending the winner; a
// follow-up links back to its test.
function winner(message) {
  const link = (id) => h("a", { href: `#/messages/${encodeURIComponent(id)}` }, id);
  if (message.follow_up_of) {
    return h("section", { id: "winner" }, h("h2", {}, "Winner of a split test"),
      h("p", {}, "Sent to the rest of the audience of ", link(message.follow_up_of), "."));
  }
  const test = message.winner;
  if (!test) return null;
  const share = `${Math.round(1000 * test.test_share) / 10}%`;
  const confidence = `${Math.round(1000 * test.confidence) / 10}%`;
  const rule = `Tested on ${share} of the audience; decided ${test.decide_at ? time(test.decide_at) :
    "after the test's sends are resolved"} at ${confidence} confidence; if inconclusive: ${test.if_inconclusive}.`;
  const decided = test.state === "decided" ? [
    h("p", {}, `Winner: ${test.variant} (${test.significant ? "significant" : "inconclusive, best was " + test.best}) · ` +
      `decided ${time(test.decided_at)} · follow-up `, link(test.follow_up_message_id)),
    table(["Variant", "Recipients", "Converted", "Rate", `${confidence} interval`], (test.variants ?? []).map((arm) =>
      [arm.variant, arm.recipients, arm.converted, rate(arm.rate),
        arm.low === null ? "–" : `${rate(arm.low)} to ${rate(arm.high)}`])),
  ] : [h("p", {}, test.state === "cancelled" ? "Cancelled before the decision: no winner is sent." : "Testing.")];
  return h("section", { id: "winner" }, h("h2", {}, "Split test that picks its winner"),
    h("p", { class: "muted" }, rule), ...decided);
}

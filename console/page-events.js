import { api, session } from "/console/api.js";
import { field, h, show, table, time } from "/console/dom.js";

const types = ["", "delivery", "open", "dismiss", "action", "reply", "link_open", "deeplink_open", "token_register",
  "token_unregister", "permission_change", "silent_received", "media_failed", "uninstall"];

export async function eventsPage(view) {
  const type = h("select", { name: "type" }, types.map((name) => h("option", { value: name }, name || "any")));
  const message = h("input", { name: "message_id" });
  const campaign = h("input", { name: "campaign_id" });
  const since = h("input", { type: "datetime-local", name: "since" });
  const until = h("input", { type: "datetime-local", name: "until" });
  const results = h("div", { "aria-live": "polite" });
  const cursors = [];
  let next = null;

  const query = (cursor) => {
    const parameters = new URLSearchParams({ limit: "50" });
    if (type.value) parameters.set("type", type.value);
    if (message.value) parameters.set("message_id", message.value.trim());
    if (campaign.value) parameters.set("campaign_id", campaign.value.trim());
    if (since.value) parameters.set("since", String(new Date(since.value).getTime()));
    if (until.value) parameters.set("until", String(new Date(until.value).getTime()));
    if (cursor) parameters.set("cursor", cursor);
    return parameters;
  };

  async function load(cursor) {
    try {
      const page = await api("GET", `/v1/events?${query(cursor)}`);
      next = page.next_cursor;
      show(results,
        table(["When", "Type", "Installation", "Message", "Campaign", "Detail"], page.events.map((event) => [
          time(event.occurred_at), event.type,
          h("a", { href: `#/devices/${encodeURIComponent(event.installation_id)}` }, event.installation_id),
          event.message_id ?? "", event.campaign_id ?? "", [event.action_id, event.value].filter(Boolean).join(" "),
        ]), `${page.events.length} events, page ${cursors.length + 1}`),
        h("div", { class: "row" },
          h("button", { type: "button", disabled: cursors.length === 0, onclick: () => load(cursors.pop() || null) },
            "Previous page"),
          h("button", { type: "button", disabled: !next, onclick: () => { cursors.push(cursor); load(next); } },
            "Next page")));
    } catch (error) {
      show(results, h("p", { class: "error", role: "alert" }, error.message));
    }
  }

  async function download(accept, extension) {
    const parameters = query(null);
    parameters.set("limit", "100000");
    const response = await fetch(`/v1/events?${parameters}`, {
      headers: { Accept: accept, "X-Tidings-App": session.app }, credentials: "same-origin",
    });
    if (!response.ok) {
      show(results, h("p", { class: "error", role: "alert" }, `Export failed: ${response.status}`));
      return;
    }
    const link = h("a", { href: URL.createObjectURL(await response.blob()), download: `events.${extension}` });
    document.body.append(link);
    link.click();
    link.remove();
  }

  const form = h("form", {},
    h("div", { class: "row" },
      h("div", {}, field("Type", type)), h("div", {}, field("Message id", message)),
      h("div", {}, field("Campaign id", campaign)), h("div", {}, field("From", since)),
      h("div", {}, field("Until", until))),
    h("div", { class: "row" },
      h("button", { type: "submit", class: "primary" }, "Filter"),
      h("button", { type: "button", onclick: () => download("text/csv", "csv") }, "Download CSV"),
      h("button", { type: "button", onclick: () => download("application/x-ndjson", "ndjson") }, "Download NDJSON")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    cursors.length = 0;
    load(null);
  });
  show(view, h("h1", {}, "Events"), form, results);
  await load(null);
}

import { api, can } from "/console/api.js";
import { dryRunError, dryRunReport } from "/console/dry-run.js";
import { field, h, show } from "/console/dom.js";

// NHN Cloud's limit, which keeps buttons readable on Android too; iOS itself would show four.
const maximumButtons = 3;

// The form is built from sections, each contributing to the request: adding "when", languages or variants
// later means adding a section, not rewriting the page.
function contentSection() {
  const inputs = {
    title: h("input", { name: "title", maxlength: "200" }),
    subtitle: h("input", { name: "subtitle", maxlength: "200" }),
    body: h("textarea", { name: "body", maxlength: "2000" }),
    media: h("input", { name: "media", type: "url", placeholder: "https://…/picture.jpg or .mp4" }),
    link: h("input", { name: "link", placeholder: "myapp://offer/42 or https://example.com" }),
    sound: h("input", { name: "sound", placeholder: "default" }),
    badge: h("input", { name: "badge", type: "number", min: "0" }),
    category: h("input", { name: "category" }),
    silent: h("input", { name: "silent", type: "checkbox" }),
  };
  const buttons = [];
  const buttonList = h("div");
  const addButton = h("button", { type: "button" }, "Add a button");
  function addButtonRow(title = "", url = "") {
    if (buttons.length >= maximumButtons) return;
    const row = { title: h("input", { value: title, maxlength: "40" }), url: h("input", { value: url }) };
    const index = buttons.length + 1;
    buttons.push(row);
    buttonList.append(h("fieldset", {}, h("legend", {}, `Button ${index}`),
      field("Button title", row.title), field("Button link (optional)", row.url)));
    addButton.disabled = buttons.length >= maximumButtons;
  }
  addButton.addEventListener("click", () => addButtonRow());
  const element = h("fieldset", {}, h("legend", {}, "Content"),
    field("Title", inputs.title), field("Subtitle", inputs.subtitle), field("Body", inputs.body),
    field("Image or video URL", inputs.media), field("Deep link or web link when tapped", inputs.link),
    field("Sound", inputs.sound), field("Badge", inputs.badge), field("Category", inputs.category),
    h("label", { class: "inline" }, inputs.silent, "Silent (background) push: no alert, wakes the app"),
    h("h3", {}, `Buttons (up to ${maximumButtons})`), buttonList, addButton);
  const action = (url) => ({ type: /^https?:/i.test(url) ? "web" : "deeplink", url });
  return {
    element, inputs,
    apply(request) {
      const content = {};
      for (const name of ["title", "subtitle", "body", "sound", "category"]) {
        if (inputs[name].value.trim()) content[name] = inputs[name].value.trim();
      }
      if (inputs.badge.value !== "") content.badge = Number(inputs.badge.value);
      if (inputs.media.value.trim()) content.media = { url: inputs.media.value.trim() };
      if (inputs.link.value.trim()) content.default_action = action(inputs.link.value.trim());
      const filled = buttons.filter((row) => row.title.value.trim());
      if (filled.length) {
        content.buttons = filled.map((row, index) => ({
          id: `button_${index + 1}`, title: row.title.value.trim(),
          action: row.url.value.trim() ? action(row.url.value.trim()) : { type: "open_app" },
        }));
      }
      request.content = content;
      request.kind = inputs.silent.checked ? "background" : "alert";
      if (inputs.silent.checked) request.priority = 5;
    },
    load(payload) {
      const alert = payload?.aps?.alert ?? {};
      inputs.title.value = alert.title ?? "";
      inputs.subtitle.value = alert.subtitle ?? "";
      inputs.body.value = alert.body ?? (typeof alert === "string" ? alert : "");
      inputs.sound.value = typeof payload?.aps?.sound === "string" ? payload.aps.sound : "";
      inputs.badge.value = payload?.aps?.badge ?? "";
      inputs.category.value = payload?.aps?.category ?? "";
    },
  };
}

function audienceSection(onChange) {
  const kinds = [["all", "Everyone"], ["audience", "Audience expression"], ["tags", "Tag expression"],
    ["user_ids", "Users"], ["installation_ids", "Installations"]];
  const radios = kinds.map(([value, label], index) =>
    h("label", { class: "inline" }, h("input", { type: "radio", name: "audience", value, checked: index === 0 }), label));
  const detail = h("input", { name: "audience_detail",
    placeholder: "language = ja and app_version >= 2.3 and last_seen > 30d ago; vip AND ios; or ids" });
  const count = h("p", { class: "muted", "aria-live": "polite", id: "audience-count" });
  const element = h("fieldset", {}, h("legend", {}, "Audience"), radios, field("Expression, tags or ids", detail),
    h("p", { class: "muted" }, "Audience expressions combine tags with device fields (language, region, time zone, ",
      "app and OS version, platform, last seen, consents); see docs/audiences.md."), count);
  const kind = () => element.querySelector("input[name=audience]:checked").value;
  element.addEventListener("input", onChange);
  element.addEventListener("change", onChange);
  return {
    element, count,
    target() {
      const value = detail.value.trim();
      switch (kind()) {
        case "audience": return { audience: value };
        case "tags": return { tags: value };
        case "user_ids": return { user_ids: value.split(/[\s,]+/).filter(Boolean) };
        case "installation_ids": return { installation_ids: value.split(/[\s,]+/).filter(Boolean) };
        default: return { all: true };
      }
    },
    apply(request) { request.target = this.target(); },
  };
}

// Content per language: each row is a language tag and the text that replaces the default's, so a device gets
// the best match for its language (exact tag, then the language alone, then the default).
function languagesSection(content) {
  const rows = [];
  const list = h("div");
  const add = h("button", { type: "button", id: "add-language" }, "Add a language");
  add.addEventListener("click", () => {
    const row = {
      tag: h("input", { name: `language_${rows.length}`, placeholder: "ja, en-GB", maxlength: "35" }),
      title: h("input", { name: `language_${rows.length}_title`, maxlength: "200" }),
      body: h("textarea", { name: `language_${rows.length}_body`, maxlength: "2000" }),
    };
    rows.push(row);
    list.append(h("fieldset", {}, h("legend", {}, `Language ${rows.length}`),
      field("Language tag", row.tag), field("Title in this language", row.title),
      field("Body in this language", row.body)));
    row.tag.focus();
  });
  const element = h("fieldset", {}, h("legend", {}, "Languages"),
    h("p", { class: "muted" }, "Devices whose language matches none of these get the content above."), list, add);
  return {
    element,
    apply(request) {
      const filled = rows.filter((row) => row.tag.value.trim());
      if (!filled.length) return;
      const localized = { default: request.content };
      for (const row of filled) {
        const text = { ...request.content };
        if (row.title.value.trim()) text.title = row.title.value.trim();
        if (row.body.value.trim()) text.body = row.body.value.trim();
        localized[row.tag.value.trim()] = text;
      }
      request.content = localized;
    },
  };
}

// A split test: variant A is the content above, variant B replaces its title and body; a control share gets
// nothing and is counted, so lift can be measured.
function variantsSection() {
  const enabled = h("input", { type: "checkbox", name: "split_test", id: "split-test" });
  const inputs = {
    title: h("input", { name: "variant_b_title", maxlength: "200" }),
    body: h("textarea", { name: "variant_b_body", maxlength: "2000" }),
    weightA: h("input", { name: "variant_a_weight", type: "number", min: "1", max: "1000", value: "1" }),
    weightB: h("input", { name: "variant_b_weight", type: "number", min: "1", max: "1000", value: "1" }),
    control: h("input", { name: "control_percent", type: "number", min: "0", max: "50", value: "0" }),
  };
  const details = h("div", { hidden: true },
    field("Variant B title", inputs.title), field("Variant B body", inputs.body),
    field("Weight of variant A", inputs.weightA), field("Weight of variant B", inputs.weightB),
    field("Control group (% that gets nothing)", inputs.control));
  enabled.addEventListener("change", () => { details.hidden = !enabled.checked; });
  const element = h("fieldset", {}, h("legend", {}, "Split test"),
    h("label", { class: "inline" }, enabled, "Send two variants and compare their open rates"), details);
  // Replaces title and body in one content, or in each language of a localized one.
  const variantB = (content) => {
    const replace = (text) => ({ ...text,
      ...(inputs.title.value.trim() ? { title: inputs.title.value.trim() } : {}),
      ...(inputs.body.value.trim() ? { body: inputs.body.value.trim() } : {}) });
    if (!("default" in content)) return replace(content);
    return Object.fromEntries(Object.entries(content).map(([key, text]) => [key, replace(text)]));
  };
  return {
    element,
    apply(request) {
      if (!enabled.checked) return;
      request.variants = [
        { id: "a", weight: Number(inputs.weightA.value) || 1, content: request.content },
        { id: "b", weight: Number(inputs.weightB.value) || 1, content: variantB(request.content) },
      ];
      delete request.content;
      const control = Number(inputs.control.value);
      if (control > 0) request.control = control / 100;
    },
  };
}

// When: now, at a moment, or at a wall-clock time in each device's own time zone.
function whenSection() {
  const kinds = [["now", "Now"], ["at", "At a time"], ["local", "At this time in each device's time zone"]];
  const radios = kinds.map(([value, label], index) =>
    h("label", { class: "inline" }, h("input", { type: "radio", name: "when", value, checked: index === 0 }), label));
  const moment = h("input", { name: "send_time", type: "datetime-local" });
  const fallback = h("input", { name: "fallback_time_zone",
    value: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC", placeholder: "Europe/Berlin" });
  const ifPast = h("input", { type: "checkbox", name: "if_past" });
  const details = h("div", { hidden: true }, field("Date and time", moment),
    h("div", { class: "local-only" }, field("Time zone of devices whose zone is unknown", fallback)),
    h("label", { class: "inline" }, ifPast, "Where that time has passed, send at once (else refused or skipped)"));
  const element = h("fieldset", {}, h("legend", {}, "When"), radios, details);
  const kind = () => element.querySelector("input[name=when]:checked").value;
  element.addEventListener("change", () => {
    details.hidden = kind() === "now";
    details.querySelector(".local-only").hidden = kind() !== "local";
  });
  return {
    element,
    get scheduled() { return kind() !== "now"; },
    apply(request) {
      if (kind() === "now" || !moment.value) return;
      // The browser's zone turns the picked wall-clock time into one instant; a local-time send keeps it as
      // written, for the server to place in each device's zone.
      if (kind() === "at") request.send_at = new Date(moment.value).toISOString().replace(/\.\d{3}Z$/, "Z");
      else {
        request.local_time = moment.value.slice(0, 16);
        if (fallback.value.trim()) request.fallback_time_zone = fallback.value.trim();
      }
      if (ifPast.checked) request.if_past = "send_now";
    },
  };
}

function lockScreen(report) {
  const alert = report.alert ?? {};
  const now = new Date();
  const notification = h("div", { class: "notification" },
    h("div", { class: "head" }, h("span", {}, "YOUR APP"), h("span", {}, "now")),
    alert.title ? h("div", { class: "title" }, alert.title) : null,
    alert.subtitle ? h("div", { class: "title" }, alert.subtitle) : null,
    alert.body ? h("div", {}, alert.body) : null,
    report.media?.url && report.media.type === "image" ? h("img", { src: report.media.url, alt: "" }) : null,
    report.media?.url && report.media.type !== "image" ? h("div", { class: "muted" }, `▶ ${report.media.type}`) : null,
    report.buttons?.length ? h("div", { class: "buttons" }, report.buttons.map((button) => h("span", {}, button.title))) : null);
  return h("div", { class: "lock-screen", role: "img", "aria-label": "Lock screen preview" },
    h("div", { class: "clock" }, `${now.getHours()}:${String(now.getMinutes()).padStart(2, "0")}`),
    report.content_available && !alert.title && !alert.body ?
      h("p", {}, "Silent push: nothing is shown") : notification);
}

export async function composePage(view, duplicateOf) {
  const lockScreenView = h("div", { id: "preview" });
  const lint = h("div", { class: "lint", "aria-live": "polite", id: "lint" });
  const result = h("p", { "aria-live": "polite", id: "send-result" });
  let timer = null;
  const content = contentSection();
  const audience = audienceSection(() => schedule());
  const when = whenSection();
  // In page order; each adds its part to the request, languages and the split test wrapping the content.
  const sections = [content, languagesSection(content), variantsSection(), audience, when];
  const request = () => {
    const body = {};
    for (const section of sections) section.apply(body);
    return body;
  };

  // The checks and the lock-screen preview of one payload.
  async function lintPayload(single) {
    try {
      const checked = await api("POST", "/v1/lint", single);
      const warnings = checked.report.warnings;
      show(lockScreenView, lockScreen(checked.report));
      show(lint, h("h2", {}, "Checks"), warnings.length === 0 ? h("p", { class: "ok" }, "No findings.") :
        h("ul", {}, warnings.map((warning) => h("li", { class: warning.severity }, `${warning.severity}: ${warning.message}`))),
        h("p", { class: "muted" }, `${checked.report.size_bytes} of ${checked.report.size_limit} bytes`));
    } catch (error) {
      show(lint, h("h2", {}, "Checks"), h("p", { class: "error" }, error.message));
    }
  }

  async function check() {
    const body = request();
    // The linter judges one payload: the default content, as most devices will get it.
    const single = {};
    content.apply(single);
    // An empty form is not a payload to judge (the server refuses it): lint only what the person has written.
    if (Object.keys(single.content).length > 0 || single.kind === "background") {
      await lintPayload(single);
    } else {
      show(lockScreenView);
      show(lint, h("h2", {}, "Checks"), h("p", { class: "muted", id: "lint-waiting" }, "Checked as you write."));
    }
    try {
      const size = await api("POST", "/v1/audience", { target: body.target });
      audience.count.textContent = `Reaches ${size.installations} installation(s) now.`;
    } catch (error) {
      audience.count.textContent = error.message;
    }
  }
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(check, 300);
  }

  // The Preview step: the server's dry run of exactly this request, which sends and stores nothing. Send is
  // offered only for the request last previewed, and sends that request, so what goes out is what was seen.
  const previewSection = h("section", { id: "dry-run", "aria-labelledby": "dry-run-heading", hidden: true });
  const previewStatus = h("div", { id: "dry-run-status", role: "status" });
  const previewBody = h("div", { id: "dry-run-body" });
  previewSection.append(h("h2", { id: "dry-run-heading", tabindex: "-1" }, "Preview of the send"), previewStatus,
    previewBody);
  // { json, report }: the request as previewed (without dry_run) and the server's answer.
  let previewed = null;
  const current = () => JSON.stringify(request());
  const previewIsCurrent = () => previewed !== null && previewed.json === current();

  const testTarget = h("input", { name: "test_installation" });
  const editor = can("editor");
  const previewButton = h("button", { type: "button", id: "preview-send", disabled: !editor }, "Preview");
  const sendButton = h("button", { type: "submit", class: "primary", id: "send-now", disabled: true }, "Send now");
  const sendHint = h("p", { class: "muted", id: "send-hint" });

  // Send follows the preview: enabled while the form still says what was previewed.
  function syncSend() {
    sendButton.textContent = when.scheduled ? "Schedule" : "Send now";
    const ready = editor && previewIsCurrent();
    sendButton.disabled = !ready;
    let hint = "Preview first: it shows who would get this and what their devices show, sending nothing.";
    if (!editor) hint = "Viewers see the lock-screen preview and checks; previewing a send and sending need an editor.";
    else if (ready) hint = `${sendButton.textContent} ${when.scheduled ? "schedules" : "sends"} exactly what the preview below shows.`;
    else if (previewed) hint = "The form has changed since the preview: preview again to send.";
    // Only a change touches the page, so a screen reader announces it once, not at every key.
    if (sendHint.textContent !== hint) sendHint.textContent = hint;
    const stale = previewed !== null && !ready;
    if (stale !== (previewStatus.querySelector(".stale") !== null)) {
      show(previewStatus, stale ? h("p", { class: "stale" }, h("strong", {}, "Out of date: "),
        "the form has changed since this preview. Preview again to see and send the new version.") : null);
    }
  }

  async function previewSend() {
    const json = current();
    previewed = null;
    previewSection.hidden = false;
    previewButton.disabled = true;
    show(previewStatus, h("p", { class: "muted" }, "Previewing…"));
    show(previewBody);
    try {
      const report = await api("POST", "/v1/messages", { ...JSON.parse(json), dry_run: true });
      // A server without dry runs refuses the field; an answer that is not a dry run is never taken for one.
      if (report?.dry_run !== true) throw new Error("the server did not answer with a dry run");
      previewed = { json, report };
      show(previewStatus);
      show(previewBody, dryRunReport(report));
    } catch (error) {
      show(previewStatus);
      show(previewBody, dryRunError(error));
    } finally {
      previewButton.disabled = !editor;
      syncSend();
      previewSection.querySelector("#dry-run-heading").focus();
    }
  }

  async function send(target, label) {
    result.className = "";
    result.textContent = `${label}…`;
    try {
      const body = target ? request() : JSON.parse(previewed.json);
      if (target) {
        // A test goes out now, whatever the message's schedule.
        body.target = target;
        for (const name of ["send_at", "local_time", "fallback_time_zone", "if_past"]) delete body[name];
      }
      const accepted = await api("POST", "/v1/messages", body);
      if (target) {
        result.className = "ok";
        result.textContent = `Test sent: ${accepted.message_id} (${accepted.queued} queued).`;
      } else {
        location.hash = `#/messages/${encodeURIComponent(accepted.message_id)}`;
      }
    } catch (error) {
      result.className = "error";
      result.textContent = error.message;
    }
  }
  previewButton.addEventListener("click", previewSend);
  const form = h("form", { id: "compose-form" }, sections.map((section) => section.element),
    h("fieldset", {}, h("legend", {}, "Send"),
      field("Send a test to one installation", testTarget),
      h("div", { class: "row" },
        h("button", { type: "button", id: "send-test", disabled: !editor,
          onclick: () => testTarget.value.trim() && send({ installation_ids: [testTarget.value.trim()] }, "Sending test") },
          "Send test"),
        previewButton, sendButton),
      sendHint, result));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!editor || !previewIsCurrent()) return;
    const reach = previewed.report.reach;
    const skipped = Object.values(reach.skipped ?? {}).reduce((sum, count) => sum + count, 0);
    const who = `${reach.would_send} installation(s)${skipped ? `, ${skipped} skipped` : ""}`;
    if (confirm(when.scheduled ? `Schedule for ${who}?` : `Send to ${who}?`)) send(null, when.scheduled ? "Scheduling" : "Sending");
  });
  form.addEventListener("input", () => { schedule(); syncSend(); });
  form.addEventListener("change", syncSend);
  syncSend();
  show(view, h("h1", {}, "Compose"), h("div", { class: "split" }, form,
    h("aside", { "aria-label": "Lock screen and checks" }, h("h2", {}, "Lock screen"), lockScreenView, lint)),
    previewSection);
  if (duplicateOf) {
    const page = await api("GET", "/v1/stats/messages?limit=100");
    const original = page.messages.find((message) => message.message_id === duplicateOf);
    if (original) content.load(original.payload);
  }
  await check();
  content.inputs.title.focus();
}

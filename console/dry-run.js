// Draws the server's dry-run answer (POST /v1/messages with "dry_run": true; docs/campaigns.md, "Dry run"):
// reach and skips, variants, local schedule, duration, each rendering and what simulated devices show of it.
import { h, table, time } from "/console/dom.js";

// Every key a send counts under skipped_by_reason, in words an operator can act on; an unknown key (a newer
// server) is shown as it is.
const skipReasons = {
  consent: "Notifications are off: the device has not given notification consent.",
  ad_consent: "An ad, and the device has not agreed to ads.",
  night: "An ad during the device's night (21:00–08:00 local) without night-time ad consent.",
  frequency_cap: "The device already had the app's frequency cap of marketing pushes in its window.",
  no_token: "The device has no push token of the kind this message needs.",
  unregistered: "The installation no longer exists.",
  expired: "The message would expire before this device's turn comes.",
  control: "In the split test's control group: counted, never sent.",
  past_local_time: "The chosen local time has already passed in the device's zone (and \"send at once\" is off).",
  unknown_time_zone: "A local-time send, and the device has no known time zone and there is no fallback zone.",
  environment: "The device is in the other APNs environment (sandbox or production) than the message.",
  unknown_installation: "An installation id the message names does not exist in this app.",
  left_audience: "The device left the audience before its local due time.",
  user_changed: "Sent to a user, and the device now belongs to another user or none.",
  rendered_payload_too_large: "Personalised for this device, the payload is over APNs' size limit.",
  no_apns_credentials: "The device has only an APNs token and the app has no APNs credentials.",
  no_fcm_credentials: "The device has only an FCM token and the app has no FCM service account.",
  no_credentials: "The app has credentials for neither of the device's tokens.",
};

const limits = {
  message_rate: "the message's own rate (rate_per_second)",
  app_ceiling: "the app's sending ceiling (send settings)",
};

const taps = { deep_link: "Opens the deep link", web: "Opens the web page", screen: "Opens a screen of the app",
  app: "Opens the app" };

const number = (value) => new Intl.NumberFormat().format(value ?? 0);

// 190 → "3 min 10 s": how long a person waits, not a stopwatch reading.
function duration(seconds) {
  if (seconds < 1) return "under a second";
  const whole = Math.round(seconds);
  const parts = [[Math.floor(whole / 3600), "h"], [Math.floor((whole % 3600) / 60), "min"], [whole % 60, "s"]];
  return parts.filter(([value]) => value > 0).slice(0, 2).map(([value, unit]) => `${value} ${unit}`).join(" ");
}

function offset(seconds) {
  if (seconds === null || seconds === undefined) return "sent at once (time already past)";
  const sign = seconds < 0 ? "−" : "+";
  const minutes = Math.abs(seconds) / 60;
  return `UTC${sign}${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}

// The size of a payload against APNs' limit, said in words so the state never rests on colour alone.
function sizeState(bytes, limit, fits = bytes <= limit) {
  return h("div", { class: `size ${fits ? "fits" : "over-limit"}` },
    h("meter", { min: "0", max: String(limit), value: String(Math.min(bytes, limit)), high: String(limit * 0.9),
      optimum: "0", "aria-label": `Payload size, ${bytes} of ${limit} bytes` }),
    h("p", {}, fits ?
      `✓ Fits: ${number(bytes)} of ${number(limit)} bytes.` :
      h("strong", {}, `✗ Over the limit: ${number(bytes)} of ${number(limit)} bytes, ${number(bytes - limit)} too many. ` +
        "APNs refuses it; shorten the content.")));
}

function reach(report) {
  const skipped = Object.entries(report.reach?.skipped ?? {}).filter(([, count]) => count > 0)
    .sort(([, a], [, b]) => b - a);
  const totalSkipped = skipped.reduce((sum, [, count]) => sum + count, 0);
  const deferred = report.reach?.deferred?.night ?? 0;
  const card = (label, value, id) => h("div", { class: "card" },
    h("div", { class: "muted" }, label), h("div", { class: "value", id }, number(value)));
  return [
    h("h3", {}, "Reach"),
    h("div", { class: "cards" },
      card("Matched by the target", report.audience?.matched, "dry-run-matched"),
      card("Would be sent", report.reach?.would_send, "dry-run-would-send"),
      card("Would be skipped", totalSkipped, "dry-run-skipped"),
      deferred > 0 ? card("Ads held to 08:00 local, then sent", deferred, "dry-run-deferred") : null),
    skipped.length === 0 ? h("p", { class: "ok" }, "✓ No one would be skipped.") :
      h("div", { id: "dry-run-skips" }, table(["Reason", "Installations", "What it means"],
        skipped.map(([reason, count]) => [h("code", {}, reason), number(count), skipReasons[reason] ?? ""]),
        "Skipped, by reason (reasons with none are left out)")),
  ];
}

function variants(report) {
  if (!report.by_variant?.length) return [];
  return [h("h3", {}, "By variant"), h("div", { id: "dry-run-variants" },
    table(["Variant", "Would be sent", "Held back (control group)"], report.by_variant.map((arm) =>
      [arm.variant, number(arm.would_send), arm.holdout === undefined ? "–" : number(arm.holdout)])))];
}

function localSchedule(report) {
  if (!report.local_schedule?.length) return [];
  return [h("h3", {}, "Local schedule"), h("div", { id: "dry-run-local-schedule" },
    table(["Due (your time)", "Zones at", "Would be sent"], report.local_schedule.map((wave) =>
      [time(wave.due_at), offset(wave.utc_offset_seconds), number(wave.would_send)]),
    "Each device gets it at the chosen time on its own clock"))];
}

function timing(report) {
  const pace = report.duration ?? {};
  const when = report.send_at > report.evaluated_at + 60_000 ? `Sending starts ${time(report.send_at)}. ` :
    "Sending starts at once. ";
  let text;
  if (!report.reach?.would_send) text = "Nothing would be sent.";
  else if (pace.limited_by === "none" || !pace.rate_per_second) {
    text = "No rate applies: pushes go out as fast as the provider takes them.";
  } else {
    text = `About ${duration(pace.seconds)} at ${number(pace.rate_per_second)} pushes a second, limited by ` +
      `${limits[pace.limited_by] ?? pace.limited_by}.`;
  }
  const span = pace.first_send_at && pace.last_send_at && pace.last_send_at !== pace.first_send_at ?
    ` First push ${time(pace.first_send_at)}, last ${time(pace.last_send_at)}.` : "";
  return [h("h3", {}, "How long it takes"), h("p", { id: "dry-run-duration" }, when, text, span)];
}

function renderingTitle(rendering) {
  const parts = [];
  if (rendering.variant !== null && rendering.variant !== undefined) parts.push(`Variant ${rendering.variant}`);
  if (rendering.language !== null && rendering.language !== undefined) {
    parts.push(rendering.language === "default" ? "default language" : `language ${rendering.language}`);
  }
  return parts.length ? parts.join(", ") : "The message";
}

function lintList(findings) {
  if (!findings?.length) return h("p", { class: "ok" }, "✓ No findings.");
  return h("ul", { class: "lint" }, findings.map((finding) => h("li", { class: finding.severity },
    h("strong", {}, `${finding.severity}: `), finding.message,
    finding.path ? [" (", h("code", {}, finding.path), ")"] : null)));
}

function buttonsText(buttons) {
  return buttons.map((button) => {
    const notes = [button.opens_app ? "opens the app" : "works in the background"];
    if (button.destructive) notes.push("destructive");
    return `${button.title} (${notes.join(", ")})`;
  }).join("; ");
}

// One simulated device: what its screen shows, then the facts a screen cannot show (where a tap goes, and
// whether that is allowed; how the app in the foreground presents it).
function deviceCard(preview) {
  const image = preview.image;
  const notification = preview.shown === false ?
    h("p", { class: "not-shown" }, "Not shown", preview.not_shown_reason ? ` (${preview.not_shown_reason})` : "", ".") :
    h("div", { class: "notification" },
      h("div", { class: "head" }, h("span", {}, "YOUR APP"), h("span", {}, "now")),
      preview.title ? h("div", { class: "title" }, preview.title) : null,
      preview.subtitle ? h("div", { class: "subtitle" }, preview.subtitle) : null,
      preview.body ? h("div", { class: "body" }, preview.body) : null,
      image?.attached && image.url ? h("img", { src: image.url, alt: "The attached image" }) : null,
      preview.buttons?.length ? h("div", { class: "buttons" }, preview.buttons.map((button) =>
        h("span", { class: button.destructive ? "destructive" : null }, button.title))) : null);
  const tap = preview.tap;
  // A push that shows nothing has no image, buttons or tap to speak of; what it still does (a badge) is listed.
  const facts = preview.shown === false ? [] : [
    ["Image", !image ? "None" : image.attached ? "✓ Attached" :
      `✗ Not attached${image.reason ? `: ${image.reason}` : ""}`],
    ["Buttons", preview.buttons?.length ? buttonsText(preview.buttons) : "None"],
    ["Category", preview.category ?? "None"],
    ["Tap", !tap ? "Not known" : [`${taps[tap.kind] ?? tap.kind}`, tap.destination ? [" ", h("code", {}, tap.destination)] : null,
      tap.allowed === false ? `: ✗ not allowed${tap.reason ? ` (${tap.reason})` : ""}.` :
        tap.allowed === null ? `: ? the app decides${tap.reason ? ` (${tap.reason})` : ""}.` : ": ✓ allowed."]],
    ["In the foreground", preview.foreground_presentation === null || preview.foreground_presentation === undefined ?
      "Not applicable: the app is not in the foreground" :
      preview.foreground_presentation.length ? preview.foreground_presentation.join(", ") : "Nothing is presented"],
  ];
  if (preview.badge !== null && preview.badge !== undefined) facts.push(["Badge", String(preview.badge)]);
  if (preview.sound) facts.push(["Sound", preview.sound]);
  if (preview.inbox) facts.push(["Inbox", "Kept in the app's inbox"]);
  return h("figure", { class: "device-preview" },
    h("figcaption", {}, preview.device ?? "A device"),
    h("div", { class: "phone" }, h("div", { class: "screen" }, notification)),
    facts.length ? h("dl", { class: "facts" }, facts.map(([term, detail]) => [h("dt", {}, term), h("dd", {}, detail)])) : null);
}

function rendering(item, index) {
  const id = `dry-run-rendering-${index}`;
  const previews = item.device_previews ?? [];
  return h("article", { class: "rendering", "aria-labelledby": `${id}-title`, id },
    h("h4", { id: `${id}-title` }, renderingTitle(item)),
    h("p", { class: "muted" }, item.installation_id ?
      ["Personalised for installation ", h("code", {}, item.installation_id), "."] :
      "No installation in the audience gets it: shown without personalisation."),
    sizeState(item.payload_bytes, item.limit_bytes, item.fits),
    h("h5", {}, "Checks"), lintList(item.lint),
    h("details", { open: true }, h("summary", {}, `Payload (${number(item.payload_bytes)} bytes)`),
      h("pre", { class: "payload", tabindex: "0", "aria-label": "Payload as JSON" },
        h("code", {}, JSON.stringify(item.payload, null, 2)))),
    h("h5", {}, "On devices"),
    previews.length ? h("div", { class: "phones" }, previews.map(deviceCard)) :
      h("p", { class: "muted" }, "This server did not simulate devices for this rendering."));
}

// A refused preview, inline: the same refusal a real send would get. A payload over APNs' limit is the
// over-limit state itself, not a generic error.
export function dryRunError(error) {
  if (error.code === "payload_too_large") {
    return h("div", { class: "size over-limit", role: "alert", id: "dry-run-error" }, h("p", {},
      h("strong", {}, "✗ Over the limit: "), `${error.message}. APNs refuses a payload over its limit; shorten the content.`));
  }
  return h("p", { class: "error", role: "alert", id: "dry-run-error" },
    h("strong", {}, "The server refused the preview: "), error.message, error.code ? [" (", h("code", {}, error.code), ")"] : null);
}

// The whole answer, below the heading the page gives it.
export function dryRunReport(report) {
  const renderings = report.renderings ?? [];
  return [
    h("p", { class: "muted" }, `Evaluated ${time(report.evaluated_at)} against the audience as it is now; `,
      "nothing was sent or stored."),
    reach(report), variants(report), localSchedule(report), timing(report),
    h("h3", {}, `Renderings (${renderings.length})`),
    h("p", { class: "muted" }, "Each variant and language, as the payload a real send would push."),
    renderings.map(rendering),
    report.notes?.length ? [h("h3", {}, "Notes"), h("ul", { id: "dry-run-notes" }, report.notes.map((note) => h("li", {}, note)))] : null,
  ];
}

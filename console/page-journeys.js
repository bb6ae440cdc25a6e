// Journeys (docs/journeys.md): the list, a journey's page with each step's numbers, and the builder, where a
// journey is a list of steps the server validates before anything is stored.
import { api, can } from "/console/api.js";
import { setPageTimer } from "/console/app.js";
import { field, h, show, table, time } from "/console/dom.js";

const stepTypes = ["send", "wait", "branch", "split", "exit"];
const units = [["seconds", 1], ["minutes", 60], ["hours", 3600], ["days", 86400]];
const shortUnits = { seconds: "s", minutes: "min", hours: "h", days: "d" };
// Seconds in the largest unit that divides them: [unit, amount].
const inUnits = (seconds) => units.slice().reverse().map(([unit, length]) =>
  seconds % length === 0 ? [unit, seconds / length] : null).find(Boolean) ?? ["seconds", seconds];
// A labelled control in a row of them, kept together.
const cell = (label, control) => h("div", {}, field(label, control));
const link = (id, text) => h("a", { href: `#/journeys/${encodeURIComponent(id)}` }, text ?? id);
const total = (exited) => typeof exited === "number" ? exited :
  Object.values(exited ?? {}).reduce((sum, count) => sum + count, 0);

function triggerText(trigger) {
  if (!trigger) return "–";
  const narrowed = (where) => where ? ` (${[where.value !== undefined ? `value = ${where.value}` : null,
    ...Object.entries(where.attributes ?? {}).map(([key, value]) => `${key} = ${value}`)].filter(Boolean).join(", ")})` : "";
  if (trigger.event) return `event ${trigger.event}${narrowed(trigger.where)}`;
  if (trigger.attribute) return `attribute ${trigger.attribute}${trigger.becomes !== undefined ? ` becomes ${trigger.becomes}` : ""}`;
  if (trigger.segment) return `joins segment ${trigger.segment}${trigger.include_current_members ? " (current members too)" : ""}`;
  if (trigger.schedule) {
    const schedule = trigger.schedule;
    return `every ${schedule.every}${schedule.weekday ? ` on ${schedule.weekday}` : ""} at ${schedule.at}` +
      (schedule.audience ? ` for ${schedule.audience}` : "");
  }
  return JSON.stringify(trigger);
}

export async function journeysPage(view) {
  const answer = await api("GET", "/v1/journeys");
  show(view, h("h1", {}, "Journeys"),
    h("p", { class: "muted" }, "Messages sent because of what each person does: a trigger enters them, then they walk the steps on their own."),
    can("editor") ? h("p", {}, h("a", { href: "#/journeys/new", id: "new-journey" }, "Build a new journey")) : null,
    answer.journeys.length ? table(["Journey", "State", "Version", "Trigger", "Entered", "In it", "Completed", "Exited", "Updated"],
      answer.journeys.map((journey) => [link(journey.journey_id, journey.name), journey.state, journey.version,
        triggerText(journey.trigger), journey.entered ?? 0, journey.active ?? 0, journey.completed ?? 0,
        total(journey.exited), time(journey.updated_at)]))
      : h("p", { class: "muted" }, "No journeys yet."));
}

// What a step does and where it goes, in a few words, from its definition.
function stepText(step, following) {
  const next = step.next ?? following ?? "end";
  const or = (key) => step[key] ?? following ?? "end";
  const span = (seconds) => {
    const [unit, amount] = inUnits(seconds);
    return `${amount} ${shortUnits[unit]}`;
  };
  switch (step.type) {
    case "send": {
      const content = step.message?.content ?? {};
      return `“${content.title ?? content.default?.title ?? "push"}” → ${next}`;
    }
    case "wait":
      if (step.duration !== undefined) return `${span(step.duration)} → ${next}`;
      if (step.until_local_time) return `until ${step.until_local_time} local → ${next}`;
      return `for ${step.for_event}${step.timeout ? ` up to ${span(step.timeout)}` : ""}: event → ${or("on_event")}, timeout → ${or("on_timeout")}`;
    case "branch":
      return `${step.audience ? `audience ${step.audience}` : `did ${step.event}`}: then → ${or("then")}, else → ${or("else")}`;
    case "split":
      return (step.paths ?? []).map((path) => `${path.weight} → ${path.control ? "control" : path.next}`).join(", ");
    default:
      return "";
  }
}

// Each send step's split test that picks a winner: where it stands, then each arm's numbers.
function splitTests(steps) {
  const tested = steps.filter((step) => step.winner);
  if (!tested.length) return null;
  const time = (ms) => ms ? new Date(ms).toISOString() : "–";
  const rate = (value) => value == null ? "–" : `${(value * 100).toFixed(1)}%`;
  return h("section", { id: "journey-split-tests", "aria-labelledby": "journey-split-tests-heading" },
    h("h2", { id: "journey-split-tests-heading" }, "Split tests"),
    tested.map((step) => {
      const test = step.winner;
      const verdict = test.state === "decided"
        ? `decided ${test.variant ?? "–"} at ${time(test.decided_at)} (${test.inconclusive ? "inconclusive" : "significant"})`
        : `testing until ${time(test.test_ends_at)}, deciding at ${time(test.decide_at)}`;
      return h("div", { class: "split-test", "data-step": step.id },
        h("p", {}, h("strong", {}, step.id), ` (version ${test.version}): ${verdict}`),
        table(["Variant", "Sent", "Converted", "Rate"],
          (test.variants ?? []).map((arm) => [arm.variant, arm.sent ?? 0, arm.converted ?? 0, rate(arm.rate)])));
    }));
}

export async function journeyPage(view, journeyID) {
  const status = h("p", { class: "muted", id: "journey-state", "aria-live": "polite" });
  const actions = h("div", { class: "row" });
  const body = h("div");
  const editor = can("editor");

  async function transition(action) {
    try {
      await api("POST", `/v1/journeys/${encodeURIComponent(journeyID)}/${action}`);
      await refresh();
    } catch (error) {
      status.textContent = error.message;
    }
  }

  async function refresh() {
    const journey = await api("GET", `/v1/journeys/${encodeURIComponent(journeyID)}`);
    const definition = journey.definition ?? {};
    const steps = definition.steps ?? [];
    const counted = new Map((journey.steps ?? []).map((step) => [step.id, step]));
    const send = (step, counts, key) => step.type === "send" ? counts?.[key] ?? 0 : "";
    const reasons = (exited) => Object.entries(exited ?? {}).filter(([, count]) => count > 0)
      .sort((a, b) => b[1] - a[1]).map(([reason, count]) => `${reason} ${count}`).join(", ");
    const rows = steps.map((step, index) => {
      const counts = counted.get(step.id);
      const exited = total(counts?.exited);
      return [h("strong", {}, step.id), step.type, stepText(step, steps[index + 1]?.id), counts?.entered ?? 0,
        counts?.waiting ?? 0, send(step, counts, "sent"), send(step, counts, "skipped"), send(step, counts, "delivered"),
        send(step, counts, "opened"), send(step, counts, "converted"),
        exited ? `${exited} (${reasons(counts.exited)})` : "0"];
    });
    const exits = Object.entries(journey.exited ?? {}).filter(([, count]) => count > 0).sort((a, b) => b[1] - a[1]);
    show(body,
      h("dl", { class: "facts" },
        h("dt", {}, "Trigger"), h("dd", {}, triggerText(journey.trigger ?? definition.trigger)),
        h("dt", {}, "Entry"), h("dd", {}, { once: "once ever", once_every: `at most once every ${definition.entry?.days} days` }[definition.entry?.rule] ?? "every time"),
        h("dt", {}, "Exit on"), h("dd", {}, (definition.exit ?? []).map((condition) => condition.event).join(", ") || "–")),
      h("section", { id: "journey-steps", "aria-labelledby": "journey-steps-heading" },
        h("h2", { id: "journey-steps-heading" }, "Steps"),
        table(["Step", "Type", "What", "Entered", "Waiting", "Sent", "Skipped", "Delivered", "Opened", "Converted", "Exited"], rows)),
      splitTests(journey.steps ?? []),
      h("section", { id: "journey-exits" }, h("h2", {}, "Exited by reason"),
        exits.length ? table(["Reason", "People"], exits) : h("p", { class: "muted" }, "No one has exited.")),
      h("p", { class: "muted" }, `Versions: ${(journey.versions ?? []).map((version) => version.version ?? version).join(", ") || journey.version}.`));
    status.textContent = `State: ${journey.state} · version ${journey.version} · ${journey.entered ?? 0} entered, ` +
      `${journey.active ?? 0} in it, ${journey.completed ?? 0} completed, ${total(journey.exited)} exited · updating every 2 s`;
    status.dataset.state = journey.state;
    const allowed = { draft: ["start", "archive"], active: ["pause", "archive"], paused: ["start", "archive"] }[journey.state] ?? [];
    show(actions, editor ? [
      allowed.includes("start") ? h("button", { type: "button", class: "primary", id: "journey-start", onclick: () => transition("start") },
        journey.state === "paused" ? "Resume" : "Start") : null,
      allowed.includes("pause") ? h("button", { type: "button", id: "journey-pause", onclick: () => transition("pause") }, "Pause") : null,
      allowed.includes("archive") ? h("button", { type: "button", class: "danger", id: "journey-archive", onclick: () => {
        if (confirm("Archive? No one enters again; everyone in it finishes.")) transition("archive");
      } }, "Archive") : null,
      journey.state !== "archived" ? h("a", { href: `#/journeys/${encodeURIComponent(journeyID)}/edit`, id: "journey-edit" }, "Edit (a new version)") : null,
    ] : null);
  }

  show(view, h("p", {}, h("a", { href: "#/journeys" }, "← Journeys")), h("h1", {}, `Journey ${journeyID}`),
    status, actions, body);
  await refresh();
  // People move through the steps while the page is open: poll until it is left.
  setPageTimer(setInterval(() => refresh().catch(() => {}), 2000));
}

// The builder's model: the definition as edited, each step with the builder's choices (which kind of wait or
// branch, the unit of a duration) beside its fields; `definition()` turns it into what the API takes.
function stepFrom(step) {
  const model = { id: step.id ?? "", type: step.type ?? "send", next: step.next ?? "" };
  const content = step.message?.content ?? {};
  model.title = content.title ?? "";
  model.body = content.body ?? "";
  model.message = step.message;
  model.wait = step.until_local_time ? "until_local_time" : step.for_event ? "for_event" : "duration";
  const seconds = step.duration ?? 3600;
  [model.unit, model.amount] = inUnits(seconds);
  model.until = step.until_local_time ?? "09:00";
  model.forEvent = step.for_event ?? "";
  model.timeout = step.timeout ?? 86400;
  model.onEvent = step.on_event ?? "";
  model.onTimeout = step.on_timeout ?? "";
  model.branch = step.event ? "event" : "audience";
  model.condition = step.audience ?? step.event ?? "";
  model.then = step.then ?? "";
  model.else = step.else ?? "";
  model.paths = (step.paths ?? [{ weight: 50, next: "" }, { weight: 50, control: true }])
    .map((path) => ({ weight: path.weight, next: path.next ?? "", control: path.control === true }));
  return model;
}

function stepDefinition(model) {
  const step = { id: model.id.trim(), type: model.type };
  const target = (value) => value || undefined;
  switch (model.type) {
    case "send": {
      const content = { ...(model.message?.content ?? {}) };
      delete content.title;
      delete content.body;
      if (model.title.trim()) content.title = model.title.trim();
      if (model.body.trim()) content.body = model.body.trim();
      step.message = { ...(model.message ?? {}), content };
      step.next = target(model.next);
      break;
    }
    case "wait":
      if (model.wait === "duration") {
        step.duration = Number(model.amount) * units.find(([unit]) => unit === model.unit)[1];
        step.next = target(model.next);
      } else if (model.wait === "until_local_time") {
        step.until_local_time = model.until;
        step.next = target(model.next);
      } else {
        step.for_event = model.forEvent.trim();
        step.timeout = Number(model.timeout);
        step.on_event = target(model.onEvent);
        step.on_timeout = target(model.onTimeout);
      }
      break;
    case "branch":
      step[model.branch] = model.condition.trim();
      step.then = target(model.then);
      step.else = target(model.else);
      break;
    case "split":
      step.paths = model.paths.map((path) => path.control ? { weight: Number(path.weight), control: true } :
        { weight: Number(path.weight), next: path.next });
      break;
    default:
      break;
  }
  return JSON.parse(JSON.stringify(step));
}

export async function journeyBuilderPage(view, journeyID) {
  if (!can("editor")) {
    show(view, h("h1", {}, "Journeys"), h("p", { class: "muted" }, "Building and editing journeys needs an editor."),
      h("p", {}, h("a", { href: "#/journeys" }, "← Journeys")));
    return;
  }
  const existing = journeyID ? await api("GET", `/v1/journeys/${encodeURIComponent(journeyID)}`) : null;
  const start = existing?.definition ?? {
    name: "", trigger: { event: "" }, entry: { rule: "every_time" }, exit: [],
    steps: [{ id: "pause", type: "wait", duration: 3600 }, { id: "remind", type: "send", message: { content: {} } }],
  };
  const steps = start.steps.map(stepFrom);
  let errors = [];

  const name = h("input", { name: "journey_name", maxlength: "200", value: start.name ?? "", required: true });
  const trigger = start.trigger ?? {};
  const triggerKind = h("select", { name: "trigger_kind" },
    [["event", "An event"], ["attribute", "An attribute changes"], ["segment", "Joins a segment"],
      ["schedule", "A schedule"]].map(([value, label]) =>
      h("option", { value, selected: trigger[value] !== undefined }, label)));
  const triggerInputs = {
    event: h("input", { name: "trigger_event", value: trigger.event ?? "", placeholder: "add_to_cart" }),
    whereValue: h("input", { name: "trigger_where_value", value: trigger.where?.value ?? "", placeholder: "optional" }),
    attribute: h("input", { name: "trigger_attribute", value: trigger.attribute ?? "", placeholder: "plan, or user.plan for the profile's" }),
    becomes: h("input", { name: "trigger_becomes", value: trigger.becomes ?? "", placeholder: "optional: pro" }),
    segment: h("input", { name: "trigger_segment", value: trigger.segment ?? "", placeholder: "a saved segment's name" }),
    currentMembers: h("input", { name: "trigger_include_current_members", type: "checkbox",
      checked: trigger.include_current_members === true }),
    every: h("select", { name: "trigger_every" }, ["day", "week"].map((value) =>
      h("option", { value, selected: trigger.schedule?.every === value }, value))),
    at: h("input", { name: "trigger_at", type: "time", value: trigger.schedule?.at ?? "09:00" }),
    weekday: h("select", { name: "trigger_weekday" }, ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
      "sunday"].map((value) => h("option", { value, selected: trigger.schedule?.weekday === value }, value))),
    audience: h("input", { name: "trigger_audience", value: trigger.schedule?.audience ?? "", placeholder: "tag:vip" }),
  };
  const triggerParts = {
    event: h("div", {}, field("Event type", triggerInputs.event), field("Only when its value is", triggerInputs.whereValue)),
    attribute: h("div", {}, field("Custom attribute", triggerInputs.attribute), field("Only when it becomes", triggerInputs.becomes)),
    segment: h("div", {}, field("Segment", triggerInputs.segment),
      field("Also enter who is a member when it starts", triggerInputs.currentMembers)),
    schedule: h("div", {}, field("Every", triggerInputs.every), field("At (each person's local time)", triggerInputs.at),
      field("On (weekly)", triggerInputs.weekday), field("Audience expression", triggerInputs.audience)),
  };
  const syncTrigger = () => {
    for (const [kind, part] of Object.entries(triggerParts)) part.hidden = triggerKind.value !== kind;
  };
  triggerKind.addEventListener("change", syncTrigger);
  syncTrigger();

  const entryRule = h("select", { name: "entry_rule" }, [["every_time", "Every time"], ["once", "Once ever"],
    ["once_every", "At most once every N days"]].map(([value, label]) =>
    h("option", { value, selected: (start.entry?.rule ?? "every_time") === value }, label)));
  const entryDays = h("input", { name: "entry_days", type: "number", min: "1", max: "365", value: start.entry?.days ?? 7 });
  const syncEntry = () => { entryDays.disabled = entryRule.value !== "once_every"; };
  entryRule.addEventListener("change", syncEntry);
  const exitEvents = h("input", { name: "exit_events", value: (start.exit ?? []).map((condition) => condition.event).join(", "),
    placeholder: "purchase" });

  const general = h("ul", { id: "journey-errors", class: "error", role: "alert" });
  const list = h("ol", { id: "journey-steps-builder", class: "steps" });
  const result = h("p", { id: "journey-result", "aria-live": "polite" });

  function definition() {
    const kind = triggerKind.value;
    const built = { name: name.value.trim(), entry: { rule: entryRule.value }, steps: steps.map(stepDefinition) };
    if (entryRule.value === "once_every") built.entry.days = Number(entryDays.value);
    // What the builder has no control for (a zone, attributes a trigger or an exit is narrowed by) is kept.
    if (start.fallback_time_zone) built.fallback_time_zone = start.fallback_time_zone;
    if (kind === "event") {
      built.trigger = { event: triggerInputs.event.value.trim() };
      const attributes = trigger.event === built.trigger.event ? trigger.where?.attributes : undefined;
      const value = triggerInputs.whereValue.value.trim();
      if (value || attributes) built.trigger.where = { value: value || undefined, attributes };
    } else if (kind === "attribute") {
      built.trigger = { attribute: triggerInputs.attribute.value.trim() };
      if (triggerInputs.becomes.value.trim()) built.trigger.becomes = triggerInputs.becomes.value.trim();
    } else if (kind === "segment") {
      built.trigger = { segment: triggerInputs.segment.value.trim() };
      if (triggerInputs.currentMembers.checked) built.trigger.include_current_members = true;
    } else {
      built.trigger = { schedule: { every: triggerInputs.every.value, at: triggerInputs.at.value } };
      if (triggerInputs.every.value === "week") built.trigger.schedule.weekday = triggerInputs.weekday.value;
      if (triggerInputs.audience.value.trim()) built.trigger.schedule.audience = triggerInputs.audience.value.trim();
    }
    built.exit = exitEvents.value.split(/[\s,]+/).filter(Boolean).map((event) =>
      (start.exit ?? []).find((condition) => condition.event === event) ?? { event });
    return JSON.parse(JSON.stringify(built));
  }

  // A select of the steps one may go to, with "" meaning the step after this one (the run ends after the last).
  function targetSelect(label, value, onchange, { name: selectName, control = false } = {}) {
    const select = h("select", { name: selectName },
      h("option", { value: "", selected: value === "" }, control ? "(choose a step)" : "the next step"),
      steps.filter((step) => step.id.trim()).map((step) => h("option", { value: step.id, selected: step.id === value }, step.id)));
    select.addEventListener("change", () => onchange(select.value));
    return field(label, select);
  }

  function input(model, key, attributes = {}, tag = "input") {
    const element = h(tag, attributes);
    element.value = model[key] ?? "";
    element.addEventListener("input", () => { model[key] = element.value; });
    return element;
  }

  function stepFields(model, index) {
    const prefix = `step_${index}`;
    const next = () => targetSelect("Then go to", model.next, (value) => { model.next = value; }, { name: `${prefix}_next` });
    switch (model.type) {
      case "send":
        return [field("Title", input(model, "title", { name: `${prefix}_title`, maxlength: "200" })),
          field("Body", input(model, "body", { name: `${prefix}_body`, maxlength: "2000" }, "textarea")), next()];
      case "wait": {
        const mode = h("select", { name: `${prefix}_wait` }, [["duration", "For a time"], ["until_local_time", "Until a local time"],
          ["for_event", "For an event, with a timeout"]].map(([value, label]) => h("option", { value, selected: model.wait === value }, label)));
        mode.addEventListener("change", () => { model.wait = mode.value; render(); });
        const unit = h("select", { name: `${prefix}_unit` }, units.map(([value]) => h("option", { value, selected: model.unit === value }, value)));
        unit.addEventListener("change", () => { model.unit = unit.value; });
        const parts = {
          duration: [h("div", { class: "row" }, cell("Wait", input(model, "amount", { name: `${prefix}_amount`, type: "number", min: "0" })),
            cell("Unit", unit)), next()],
          until_local_time: [field("Until (the person's local time)", input(model, "until", { name: `${prefix}_until`, type: "time" })), next()],
          for_event: [field("Event type", input(model, "forEvent", { name: `${prefix}_for_event`, placeholder: "purchase" })),
            field("Timeout (seconds)", input(model, "timeout", { name: `${prefix}_timeout`, type: "number", min: "1" })),
            targetSelect("When the event comes, go to", model.onEvent, (value) => { model.onEvent = value; }, { name: `${prefix}_on_event` }),
            targetSelect("On timeout, go to", model.onTimeout, (value) => { model.onTimeout = value; }, { name: `${prefix}_on_timeout` })],
        };
        return [field("Wait", mode), parts[model.wait]];
      }
      case "branch": {
        const kind = h("select", { name: `${prefix}_branch` }, [["audience", "The person matches an audience"],
          ["event", "The person did an event since entering"]].map(([value, label]) => h("option", { value, selected: model.branch === value }, label)));
        kind.addEventListener("change", () => { model.branch = kind.value; });
        return [field("If", kind), field("Audience expression or event type", input(model, "condition", { name: `${prefix}_condition` })),
          targetSelect("Then go to", model.then, (value) => { model.then = value; }, { name: `${prefix}_then` }),
          targetSelect("Else go to", model.else, (value) => { model.else = value; }, { name: `${prefix}_else` })];
      }
      case "split": {
        const paths = model.paths.map((path, pathIndex) => {
          const control = h("input", { type: "checkbox", name: `${prefix}_path_${pathIndex}_control`, checked: path.control });
          control.addEventListener("change", () => { path.control = control.checked; render(); });
          return h("fieldset", {}, h("legend", {}, `Path ${pathIndex + 1}`),
            field("Weight", input(path, "weight", { name: `${prefix}_path_${pathIndex}_weight`, type: "number", min: "1" })),
            h("label", { class: "inline" }, control, "Control group: exits, gets nothing"),
            path.control ? null : targetSelect("Goes to", path.next, (value) => { path.next = value; },
              { name: `${prefix}_path_${pathIndex}_next`, control: true }),
            model.paths.length > 2 ? h("button", { type: "button", onclick: () => { model.paths.splice(pathIndex, 1); render(); } }, "Remove path") : null);
        });
        return [paths, model.paths.length < 10 ? h("button", { type: "button", onclick: () => {
          model.paths.push({ weight: 10, next: "", control: false });
          render();
        } }, "Add a path") : null];
      }
      default:
        return [h("p", { class: "muted" }, "Ends the run here (exited: exit_step).")];
    }
  }

  function move(index, by) {
    const [step] = steps.splice(index, 1);
    steps.splice(index + by, 0, step);
    render();
  }

  // Each error goes beside the step its path names (`steps[2].wait` → the third step), the rest above them.
  function render() {
    const mine = (index) => errors.filter((error) => error.path === `steps[${index}]` || error.path?.startsWith(`steps[${index}].`) ||
      error.path?.startsWith(`steps[${index}][`));
    show(general, errors.filter((error) => !/^steps\[\d+\]/.test(error.path ?? ""))
      .map((error) => h("li", {}, h("code", {}, error.path || "journey"), ` ${error.message}`)));
    show(list, steps.map((model, index) => {
      const id = h("input", { name: `step_${index}_id`, value: model.id, maxlength: "64", required: true });
      id.addEventListener("input", () => { model.id = id.value; });
      id.addEventListener("change", render);
      const type = h("select", { name: `step_${index}_type` }, stepTypes.map((value) => h("option", { value, selected: model.type === value }, value)));
      type.addEventListener("change", () => { model.type = type.value; render(); });
      const problems = mine(index);
      return h("li", { class: problems.length ? "step invalid" : "step", "data-step": index },
        h("fieldset", { "aria-invalid": problems.length ? "true" : "false" },
          h("legend", {}, `Step ${index + 1}`),
          h("div", { class: "row" }, cell("Step id", id), cell("Kind", type)),
          stepFields(model, index),
          problems.length ? h("ul", { class: "step-errors error", role: "alert" },
            problems.map((error) => h("li", {}, h("code", {}, error.path), ` ${error.message}`))) : null,
          h("div", { class: "row" },
            h("button", { type: "button", disabled: index === 0, onclick: () => move(index, -1) }, "Move up"),
            h("button", { type: "button", disabled: index === steps.length - 1, onclick: () => move(index, 1) }, "Move down"),
            h("button", { type: "button", class: "danger", disabled: steps.length === 1,
              onclick: () => { steps.splice(index, 1); errors = []; render(); } }, "Remove step"))));
    }));
  }

  const newType = h("select", { name: "new_step_type", id: "new-step-type" }, stepTypes.map((value) => h("option", { value }, value)));
  function addStep() {
    const used = new Set(steps.map((step) => step.id));
    let number = steps.length + 1;
    while (used.has(`${newType.value}_${number}`)) number += 1;
    steps.push(stepFrom({ id: `${newType.value}_${number}`, type: newType.value }));
    render();
    list.lastElementChild?.querySelector("input")?.focus();
  }

  async function validate() {
    const answer = await api("POST", "/v1/journeys:validate", definition());
    errors = answer.valid ? [] : answer.errors ?? [];
    render();
    result.className = answer.valid ? "ok" : "error";
    result.textContent = answer.valid ? "✓ Valid: ready to save." : `✗ ${errors.length} problem(s): each is shown beside its step.`;
    return answer.valid;
  }

  const run = (work) => async () => {
    try {
      await work();
    } catch (error) {
      result.className = "error";
      result.textContent = error.message;
    }
  };

  const form = h("form", { id: "journey-form" },
    h("fieldset", {}, h("legend", {}, "Journey"), field("Name", name)),
    h("fieldset", {}, h("legend", {}, "Who enters, and when"), field("Trigger", triggerKind), Object.values(triggerParts),
      field("Entry rule", entryRule), field("Days (for at most once every N days)", entryDays)),
    h("fieldset", {}, h("legend", {}, "Exit"),
      field("Leave at once on any of these events (comma-separated)", exitEvents)),
    general,
    h("h2", {}, "Steps"),
    h("p", { class: "muted" }, "Each person walks the steps in order unless a step says where to go; after the last one the run completes."),
    list,
    h("div", { class: "row" }, cell("New step's kind", newType),
      h("button", { type: "button", id: "add-step", onclick: addStep }, "Add a step")),
    h("div", { class: "row" },
      h("button", { type: "button", id: "journey-validate", onclick: run(validate) }, "Validate"),
      h("button", { type: "submit", class: "primary", id: "journey-save" }, journeyID ? "Save a new version" : "Save as draft")),
    result);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(async () => {
      if (!(await validate())) return;
      const saved = journeyID ?
        await api("PUT", `/v1/journeys/${encodeURIComponent(journeyID)}`, definition()) :
        await api("POST", "/v1/journeys", definition());
      location.hash = `#/journeys/${encodeURIComponent(saved.journey_id)}`;
    })();
  });
  render();
  show(view, h("p", {}, h("a", { href: journeyID ? `#/journeys/${encodeURIComponent(journeyID)}` : "#/journeys" }, "← Back")),
    h("h1", {}, journeyID ? `Edit journey ${journeyID}` : "New journey"), form);
  syncEntry();
  name.focus();
}

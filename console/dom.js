// Builds elements without innerHTML, so text from the server is never parsed as markup. Children may be
// nested arrays (a section's parts), flattened in order.
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "text") element.textContent = value;
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

let fieldCounter = 0;

// A labelled control: the label's `for` names the control's id.
export function field(labelText, control) {
  if (!control.id) control.id = `field-${++fieldCounter}`;
  return [h("label", { for: control.id }, labelText), control];
}

export function table(headers, rows, caption) {
  return h("div", { class: "table-wrap" },
    h("table", {},
      caption ? h("caption", { class: "muted" }, caption) : null,
      h("thead", {}, h("tr", {}, headers.map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((cell) => h("td", {}, cell)))))));
}

export function time(milliseconds) {
  if (!milliseconds) return "";
  return new Date(milliseconds).toLocaleString();
}

export function percent(part, whole) {
  if (!whole) return "–";
  return `${((100 * part) / whole).toFixed(1)}%`;
}

// A rate the server computed (0…1, or null until something was delivered) as a percentage.
export function rate(value) {
  return typeof value === "number" ? `${(100 * value).toFixed(1)}%` : "–";
}

// Replaces what `view` shows; null, undefined and false children (a section left out) show nothing, as in h().
export function show(view, ...children) {
  view.replaceChildren(...children.flat(Infinity).filter((child) => child !== null && child !== undefined && child !== false));
}

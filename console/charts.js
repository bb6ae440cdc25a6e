// Plain SVG line charts drawn here: days along the bottom, one line per series.
const NS = "http://www.w3.org/2000/svg";

function svg(tag, attributes = {}) {
  const element = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  return element;
}

export function lineChart({ title, days, series, format = (value) => String(value), maximum }) {
  const width = 640;
  const height = 220;
  const left = 44;
  const bottom = 24;
  const top = 10;
  const plotWidth = width - left - 10;
  const plotHeight = height - top - bottom;
  const values = series.flatMap((line) => line.values);
  const peak = maximum ?? Math.max(1, ...values);
  const x = (index) => left + (days.length <= 1 ? 0 : (index * plotWidth) / (days.length - 1));
  const y = (value) => top + plotHeight - (value / peak) * plotHeight;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title });
  const description = svg("title");
  description.textContent = `${title}: ` + series.map((line) =>
    `${line.name} ${line.values.map(format).join(", ")}`).join("; ");
  chart.append(description);
  chart.append(svg("line", { class: "axis", x1: left, y1: top + plotHeight, x2: width - 10, y2: top + plotHeight }));
  chart.append(svg("line", { class: "axis", x1: left, y1: top, x2: left, y2: top + plotHeight }));
  for (const fraction of [0, 0.5, 1]) {
    const label = svg("text", { x: left - 6, y: y(peak * fraction) + 4, "text-anchor": "end" });
    label.textContent = format(Math.round(peak * fraction * 100) / 100);
    chart.append(label);
  }
  days.forEach((day, index) => {
    if (days.length > 8 && index % Math.ceil(days.length / 7) !== 0) return;
    const label = svg("text", { x: x(index), y: height - 6, "text-anchor": "middle" });
    const date = new Date(day);
    label.textContent = `${date.getUTCMonth() + 1}/${date.getUTCDate()}`;
    chart.append(label);
  });
  series.forEach((line, number) => {
    const color = `var(--chart-${number + 1})`;
    const points = line.values.map((value, index) => `${x(index)},${y(value)}`).join(" ");
    chart.append(svg("polyline", { points, fill: "none", stroke: color, "stroke-width": 2 }));
    line.values.forEach((value, index) => {
      chart.append(svg("circle", { cx: x(index), cy: y(value), r: 2.5, fill: color }));
    });
  });
  const legend = document.createElement("div");
  legend.className = "legend";
  series.forEach((line, number) => {
    const item = document.createElement("span");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = `var(--chart-${number + 1})`;
    item.append(swatch, line.name);
    legend.append(item);
  });
  const figure = document.createElement("figure");
  figure.className = "chart";
  const caption = document.createElement("figcaption");
  caption.textContent = title;
  figure.append(caption, chart, legend);
  return figure;
}

// Small stacked bar charts drawn as SVG, with a data table beside them for screen readers and exact figures. The SVG
// is drawn at the width it is shown at (one SVG unit = one CSS pixel), and again when that width changes, so that its
// text keeps the size set in style.css (12 px) on a phone as on a desktop instead of shrinking with the chart.
import { h, svg } from './dom.js';

export interface Series {
  name: string;
  values: number[];
}

/** Days along the bottom (columns), or one row per key or tag with its name above its bar (rows: long names fit). */
export type Layout = 'columns' | 'rows';

/** The axis text size in pixels (style.css .chart text) and a generous average character width for it. */
const FONT = 12;
const CHAR_W = FONT * 0.62;
const textWidth = (s: string) => s.length * CHAR_W;
/** A width to draw at until the chart is laid out. */
const FIRST_WIDTH = 420;

function niceMax(n: number): number {
  if (n <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((m) => m * p).find((v) => v >= n)!;
}

/** The name cut to fit a width, with an ellipsis (the full name is in the bar's tooltip and the table). */
function fit(name: string, width: number): string {
  const chars = Math.max(1, Math.floor(width / CHAR_W));
  return name.length <= chars ? name : `${name.slice(0, Math.max(1, chars - 1))}…`;
}

interface Data {
  categories: string[];
  series: Series[];
  unit: string;
  /** Each category's total over the series. */
  totals: number[];
}

function bar(d: Data, i: number, k: number, rect: { x: number; y: number; width: number; height: number }): SVGElement {
  const v = d.series[k]!.values[i] ?? 0;
  return svg('rect', { ...rect, class: `s${k}` }, svg('title', {}, `${d.categories[i]} · ${d.series[k]!.name}: ${v.toLocaleString()} ${d.unit}`));
}

function columns(d: Data, width: number, aria: string): SVGElement {
  const height = 220;
  const max = niceMax(Math.max(0, ...d.totals));
  const ticks = [0, 0.5, 1].map((f) => max * f);
  const pad = { left: Math.ceil(Math.max(...ticks.map((t) => textWidth(t.toLocaleString())))) + 10, right: 8, top: 12, bottom: 28 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const slot = plotW / Math.max(1, d.categories.length);
  const barW = Math.max(2, Math.min(40, slot * 0.7));
  const y = (v: number) => pad.top + plotH - (v / max) * plotH;
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': aria, class: 'chart' });
  for (const t of ticks) {
    root.append(
      svg('line', { x1: pad.left, x2: width - pad.right, y1: y(t), y2: y(t), class: 'grid' }),
      svg('text', { x: pad.left - 6, y: y(t) + FONT / 3, 'text-anchor': 'end', class: 'axis' }, t.toLocaleString()),
    );
  }
  // Label every n-th category, n as small as lets the labels stand apart.
  const widest = Math.max(0, ...d.categories.map(textWidth));
  const every = Math.max(1, Math.ceil((widest + 8) / slot));
  d.categories.forEach((c, i) => {
    const x = pad.left + i * slot + (slot - barW) / 2;
    let top = 0;
    d.series.forEach((s, k) => {
      const v = s.values[i] ?? 0;
      if (v <= 0) return;
      root.append(bar(d, i, k, { x, y: y(top + v), width: barW, height: Math.max(1, y(top) - y(top + v)) }));
      top += v;
    });
    if (i % every === 0) root.append(svg('text', { x: x + barW / 2, y: height - pad.bottom + FONT + 4, 'text-anchor': 'middle', class: 'axis' }, c));
  });
  return root;
}

function rows(d: Data, width: number, aria: string): SVGElement {
  const max = Math.max(1, ...d.totals);
  const rowH = FONT + 26; // the name, then the bar
  const height = Math.max(1, d.categories.length) * rowH + 4;
  const valueW = Math.ceil(textWidth(max.toLocaleString())) + 8;
  const plotW = Math.max(10, width - valueW);
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': aria, class: 'chart' });
  d.categories.forEach((c, i) => {
    const top = i * rowH;
    root.append(svg('text', { x: 0, y: top + FONT, class: 'axis' }, fit(c, width)));
    let left = 0;
    d.series.forEach((s, k) => {
      const v = s.values[i] ?? 0;
      if (v <= 0) return;
      const w = Math.max(1, (v / max) * plotW);
      root.append(bar(d, i, k, { x: left, y: top + FONT + 5, width: w, height: 16 }));
      left += w;
    });
    root.append(svg('text', { x: left + 6, y: top + FONT + 5 + 12, class: 'axis value' }, d.totals[i]!.toLocaleString()));
  });
  return root;
}

export function barChart(title: string, categories: string[], series: Series[], unit: string, layout: Layout = 'columns'): HTMLElement {
  const data: Data = { categories, series, unit, totals: categories.map((_, i) => series.reduce((s, x) => s + (x.values[i] ?? 0), 0)) };
  const aria = `${title}: bar chart; the figures are in the table below`;
  const draw = (width: number) => (layout === 'rows' ? rows : columns)(data, width, aria);
  let drawnAt = FIRST_WIDTH;
  let chart = draw(drawnAt);
  const legend = h('ul', { class: 'legend' }, ...series.map((s, k) => h('li', {}, h('span', { class: `swatch s${k}` }), s.name)));
  const table = h('table', { class: 'chart-data' },
    h('caption', {}, `${title} (${unit})`),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), ...series.map((s) => h('th', { scope: 'col' }, s.name)))),
    h('tbody', {}, ...categories.map((c, i) => h('tr', {}, h('th', { scope: 'row' }, c), ...series.map((s) => h('td', {}, (s.values[i] ?? 0).toLocaleString()))))));
  const figure = h('figure', { class: 'chart-box' }, h('figcaption', {}, title), chart, legend, h('details', {}, h('summary', {}, 'Figures'), table));
  // Redrawn at its laid-out width: the observer reports before the first paint, so the first width is never seen.
  new ResizeObserver(([entry]) => {
    const width = Math.floor(entry?.contentRect.width ?? 0);
    if (width <= 0 || width === drawnAt) return;
    drawnAt = width;
    const next = draw(width);
    chart.replaceWith(next);
    chart = next;
  }).observe(figure);
  return figure;
}

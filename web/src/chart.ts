// A small stacked bar chart drawn as SVG, with a data table beside it for screen readers and exact figures.
import { h, svg } from './dom.js';

export interface Series {
  name: string;
  values: number[];
}

const W = 640;
const H = 220;
const PAD = { left: 72, right: 8, top: 12, bottom: 44 };

function niceMax(n: number): number {
  if (n <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((m) => m * p).find((v) => v >= n)!;
}

export function barChart(title: string, categories: string[], series: Series[], unit: string): HTMLElement {
  const totals = categories.map((_, i) => series.reduce((s, x) => s + (x.values[i] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, categories.length);
  const barW = Math.max(2, Math.min(40, slot * 0.7));
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${title}: bar chart; the figures are in the table below`, class: 'chart' });
  for (const f of [0, 0.5, 1]) {
    root.append(
      svg('line', { x1: PAD.left, x2: W - PAD.right, y1: y(max * f), y2: y(max * f), class: 'grid' }),
      svg('text', { x: PAD.left - 6, y: y(max * f) + 4, 'text-anchor': 'end', class: 'axis' }, (max * f).toLocaleString()),
    );
  }
  // Label at most ~12 categories so they stay readable.
  const every = Math.max(1, Math.ceil(categories.length / 12));
  categories.forEach((c, i) => {
    const x = PAD.left + i * slot + (slot - barW) / 2;
    let top = 0;
    series.forEach((s, k) => {
      const v = s.values[i] ?? 0;
      if (v <= 0) return;
      root.append(svg('rect', { x, y: y(top + v), width: barW, height: Math.max(1, y(top) - y(top + v)), class: `s${k}` },
        svg('title', {}, `${c} · ${s.name}: ${v.toLocaleString()} ${unit}`)));
      top += v;
    });
    if (i % every === 0) root.append(svg('text', { x: x + barW / 2, y: H - PAD.bottom + 16, 'text-anchor': 'middle', class: 'axis' }, c));
  });
  const legend = h('ul', { class: 'legend' }, ...series.map((s, k) => h('li', {}, h('span', { class: `swatch s${k}` }), s.name)));
  const table = h('table', { class: 'chart-data' },
    h('caption', {}, `${title} (${unit})`),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), ...series.map((s) => h('th', { scope: 'col' }, s.name)))),
    h('tbody', {}, ...categories.map((c, i) => h('tr', {}, h('th', { scope: 'row' }, c), ...series.map((s) => h('td', {}, (s.values[i] ?? 0).toLocaleString()))))));
  return h('figure', { class: 'chart-box' }, h('figcaption', {}, title), root, legend,
    h('details', {}, h('summary', {}, 'Figures'), table));
}

// The admin console's usage charts: characters per day by service, voice minutes, characters per key and per
// reporting tag, over a range of days. Read again on request and by the console's periodic refresh, which uses the
// range last shown (never a date half typed in the fields) and redraws only when the figures changed.
import { call } from './api.js';
import { barChart } from './chart.js';
import { field, h } from './dom.js';

interface Usage {
  total_characters: number;
  text_translation_characters: number;
  document_translation_characters: number;
  text_improvement_characters: number;
  speech_to_text_minutes: number;
}
interface KeyUsage {
  api_key: string;
  api_key_label: string;
  usage_date?: string;
  usage: Usage;
}
interface TagUsage {
  custom_tag: string;
  breakdown: Usage;
}

const DAY = 86_400_000;
export const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

export interface UsageCharts {
  el: HTMLElement;
  /** Reads the figures of the range shown; `asked` takes the range in the fields (the person pressed Show usage). */
  load(asked?: boolean): Promise<void>;
}

export function usageCharts(fail: (err: unknown) => void): UsageCharts {
  const charts = h('div', { class: 'charts', id: 'charts' });
  const to = h('input', { type: 'date', id: 'range-end', value: isoDay(Date.now()) });
  const from = h('input', { type: 'date', id: 'range-start', value: isoDay(Date.now() - 13 * DAY) });
  /** The range shown; one that ends today moves on with the days while the page stays open. */
  let range = { start: Date.parse(from.value), end: Date.parse(to.value), endsToday: true };
  let shown = '';

  async function load(asked = false): Promise<void> {
    if (asked) {
      const [start, end] = [Date.parse(from.value), Date.parse(to.value)];
      if (!(end >= start)) return fail(new Error('The range must start before it ends.'));
      range = { start, end, endsToday: to.value === isoDay(Date.now()) };
    } else if (range.endsToday && isoDay(range.end) !== isoDay(Date.now())) {
      // The field follows unless the person has put another date in it.
      if (to.value === isoDay(range.end)) to.value = isoDay(Date.now());
      range = { ...range, end: Date.parse(isoDay(Date.now())) };
    }
    const { start } = range;
    const end = range.end + DAY; // the end day is included
    const q = `start_date=${isoDay(start)}&end_date=${isoDay(end)}`;
    const [byDay, tags] = await Promise.all([
      call<{ usage_report: { key_and_day_usages?: KeyUsage[] } }>('GET', `/v2/admin/analytics?${q}&group_by=key_and_day`),
      call<{ custom_tag_usage_report: { usage: TagUsage[] } }>('GET', `/v2/admin/analytics/custom-tags?${q}&aggregate_by=period`),
    ]);
    const rows = byDay.usage_report.key_and_day_usages ?? [];
    const tagRows = tags.custom_tag_usage_report.usage;
    const figures = JSON.stringify([q, rows, tagRows]);
    if (figures === shown) return; // nothing new: the charts, their open tables and the focus stay as they are
    shown = figures;
    const days: string[] = [];
    for (let t = start; t < end; t += DAY) days.push(isoDay(t));
    const perDay = (pick: (u: Usage) => number) => days.map((d) => rows.filter((r) => r.usage_date?.startsWith(d)).reduce((s, r) => s + pick(r.usage), 0));
    const keyName = (r: KeyUsage) => `${r.api_key_label} (${r.api_key})`;
    const keyNames = [...new Set(rows.map(keyName))];
    const perKey = keyNames.map((n) => rows.filter((r) => keyName(r) === n).reduce((s, r) => s + r.usage.total_characters, 0));
    redraw(
      barChart('Characters per day by service', days.map((d) => d.slice(5)), [
        { name: 'Text translation', values: perDay((u) => u.text_translation_characters) },
        { name: 'Documents', values: perDay((u) => u.document_translation_characters) },
        { name: 'Text improvement', values: perDay((u) => u.text_improvement_characters) },
      ], 'characters'),
      rows.some((r) => r.usage.speech_to_text_minutes > 0)
        ? barChart('Voice minutes per day', days.map((d) => d.slice(5)), [{ name: 'Speech to text', values: perDay((u) => u.speech_to_text_minutes) }], 'minutes')
        : h('p', { class: 'hint' }, 'No voice minutes in this range.'),
      keyNames.length
        ? barChart('Characters per key', keyNames, [{ name: 'All services', values: perKey }], 'characters', 'rows')
        : h('p', { class: 'hint' }, 'No usage by any key in this range.'),
      tagRows.length
        ? barChart('Characters per reporting tag', tagRows.map((t) => t.custom_tag), [{ name: 'All services', values: tagRows.map((t) => t.breakdown.total_characters) }], 'characters', 'rows')
        : h('p', { class: 'hint' }, 'No usage with a reporting tag in this range.'),
    );
  }

  /** New charts in place of the old, their "Figures" tables open or closed as before and the focus kept. */
  function redraw(...next: HTMLElement[]): void {
    const summaries = () => [...charts.querySelectorAll('summary')];
    const focused = summaries().indexOf(document.activeElement as HTMLElement);
    const opened = [...charts.querySelectorAll('details')].map((d) => d.open);
    charts.replaceChildren(...next);
    charts.querySelectorAll('details').forEach((d, i) => (d.open = opened[i] ?? false));
    if (focused >= 0) summaries()[focused]?.focus({ preventScroll: true });
  }

  const rangeForm = h('form', { class: 'toolbar', onsubmit: (e: Event) => {
    e.preventDefault();
    void load(true).catch(fail);
  } }, field('From', from), field('To', to), h('button', { type: 'submit', id: 'refresh-usage' }, 'Show usage'));
  return { el: h('div', { class: 'card' }, h('h3', {}, 'Usage'), rangeForm, charts), load };
}

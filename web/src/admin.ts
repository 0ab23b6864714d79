// The admin console (admin key only): the account's quota and usage, developer keys (create with the secret shown
// once, rename, limits, deactivate after confirmation) and usage charts by day and service, by key and by tag.
import { ApiError, call } from './api.js';
import { barChart } from './chart.js';
import { Notice, copyText, field, h } from './dom.js';

interface KeyRecord {
  key_id: string;
  label: string;
  creation_time: string;
  is_deactivated: boolean;
  usage_limits: { characters: number | null; speech_to_text_milliseconds: number | null };
  scopes: string[] | null;
  /** In the list: what the key used in the current billing period (what its limits are checked against). */
  usage?: { characters: number; speech_to_text_milliseconds: number };
  key?: string;
}
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

/** The endpoint groups a key can be limited to (src/admin/scopes.ts). */
const SCOPES = ['translate', 'document', 'detect', 'glossary', 'style_rules', 'translation_memory', 'write', 'usage', 'languages'];

/** What /v2/usage reports as "no limit". */
const UNLIMITED = 1_000_000_000_000;
const DAY = 86_400_000;
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);
const minutes = (ms: number) => (ms / 60_000).toLocaleString(undefined, { maximumFractionDigits: 1 });

/** A key's use of one limit this billing period, under the limit's unit: "14 of 20 used", marked once reached. */
function used(id: string, amount: number, limit: number | null, show: (n: number) => string): HTMLElement {
  const reached = limit !== null && amount >= limit;
  return h('span', { id, class: reached ? 'used over' : 'used' },
    `${show(amount)}${limit === null ? '' : ` of ${show(limit)}`} used${reached ? ', limit reached' : ''}`);
}

export async function adminView(): Promise<HTMLElement> {
  const notice = new Notice();
  const fail = (err: unknown) => notice.show(err instanceof ApiError ? err.message : String(err), 'error');
  const quota = h('div', { class: 'card', id: 'quota' });
  const keysBody = h('tbody');
  const secretBox = h('div', { id: 'new-secret', hidden: true, class: 'card secret', role: 'status' });
  const charts = h('div', { class: 'charts', id: 'charts' });

  async function loadQuota(): Promise<void> {
    const u = await call<{ character_count: number; character_limit: number; start_time?: string; end_time?: string }>('GET', '/v2/usage');
    const limited = u.character_limit < UNLIMITED;
    const period = u.start_time && u.end_time ? ` (period ${isoDay(Date.parse(u.start_time))} to ${isoDay(Date.parse(u.end_time))})` : '';
    quota.replaceChildren(h('h3', {}, 'Quota'),
      h('p', {}, `${u.character_count.toLocaleString()} characters used${limited ? ` of ${u.character_limit.toLocaleString()}` : ', no limit'}${period}.`),
      ...(limited ? [h('meter', { min: 0, max: u.character_limit, value: u.character_count, high: u.character_limit * 0.9, 'aria-label': 'Share of the quota used' })] : []));
  }

  async function loadKeys(): Promise<void> {
    const keys = await call<KeyRecord[]>('GET', '/v2/admin/developer-keys');
    keysBody.replaceChildren(...keys.map(keyRow));
    if (keys.length === 0) keysBody.append(h('tr', {}, h('td', { colspan: 5 }, 'No developer keys yet.')));
  }

  function keyRow(k: KeyRecord): HTMLTableRowElement {
    const done = { label: 'renamed', limits: 'limits set', scopes: 'scopes set', deactivate: 'deactivated' };
    const put = (what: keyof typeof done, body: object) =>
      call('PUT', `/v2/admin/developer-keys/${what}`, { body: { key_id: k.key_id, ...body } }).then(async () => {
        await loadKeys(); // said once the table shows it
        notice.show(`Key “${k.label}”: ${done[what]}.`, 'ok');
      }, fail);
    const label = h('input', { value: k.label, 'aria-label': `Name of key ${k.label}`, disabled: k.is_deactivated });
    const usage = k.usage ?? { characters: 0, speech_to_text_milliseconds: 0 };
    const charsUsed = used(`chars-used-${k.key_id}`, usage.characters, k.usage_limits.characters, (n) => n.toLocaleString());
    const limit = h('input', { type: 'number', min: 0, value: k.usage_limits.characters ?? '', placeholder: 'no limit',
      'aria-label': `Character limit of key ${k.label}`, 'aria-describedby': charsUsed.id, disabled: k.is_deactivated, class: 'limit' });
    const speechMs = k.usage_limits.speech_to_text_milliseconds;
    const minutesUsed = used(`minutes-used-${k.key_id}`, usage.speech_to_text_milliseconds, speechMs, minutes);
    const minutesLimit = h('input', { type: 'number', min: 0, value: speechMs === null ? '' : speechMs / 60_000, placeholder: 'no limit',
      'aria-label': `Voice minutes limit of key ${k.label}`, 'aria-describedby': minutesUsed.id, disabled: k.is_deactivated, class: 'limit' });
    const orNull = (input: HTMLInputElement, scale = 1) => (input.value === '' ? null : Math.round(Number(input.value) * scale));
    // Scopes: every group ticked means an unrestricted key (scopes null), as the API has it.
    const boxes = SCOPES.map((scope) => h('input', { type: 'checkbox', value: scope, checked: k.scopes === null || k.scopes.includes(scope), disabled: k.is_deactivated }));
    const scopes = h('details', { class: 'scopes' },
      h('summary', {}, k.scopes === null ? 'All endpoints' : k.scopes.join(', ') || 'None'),
      h('div', { class: 'scope-boxes' }, ...boxes.map((b) => h('label', {}, b, ` ${b.value.replace('_', ' ')}`))),
      k.is_deactivated ? null : h('button', { type: 'button', 'aria-label': `Set scopes of key ${k.label}`, onclick: () => {
        const ticked = boxes.filter((b) => b.checked).map((b) => b.value);
        void put('scopes', { scopes: ticked.length === SCOPES.length ? null : ticked });
      } }, 'Set scopes'));
    const cell = (label: string, ...children: (Node | string | null)[]) => h('td', { 'data-label': label }, ...children);
    return h('tr', { class: k.is_deactivated ? 'inactive' : '' },
      cell('Name', label, k.is_deactivated ? null : h('button', { type: 'button', onclick: () => void put('label', { label: label.value }) }, 'Rename')),
      cell('Created', new Date(k.creation_time).toLocaleDateString()),
      cell('Limits and use this billing period',
        h('span', { class: 'limits' }, limit, h('span', { class: 'hint' }, 'characters', charsUsed),
          minutesLimit, h('span', { class: 'hint' }, 'voice minutes', minutesUsed)),
        k.is_deactivated ? null : h('button', { type: 'button',
          onclick: () => void put('limits', { characters: orNull(limit), speech_to_text_milliseconds: orNull(minutesLimit, 60_000) }) }, 'Set limits')),
      cell('Scopes', scopes),
      cell('Status', k.is_deactivated ? 'Deactivated (permanent)' : h('button', { type: 'button', class: 'danger', 'aria-label': `Deactivate key ${k.label}`,
        onclick: () => {
          if (confirm(`Deactivate the key “${k.label}”? Programs using it stop working at once; this cannot be undone.`)) void put('deactivate', {});
        } }, 'Deactivate')));
  }

  const newLabel = h('input', { id: 'new-key-label', maxlength: 1024, placeholder: 'e.g. Marketing site' });
  const createForm = h('form', { class: 'toolbar', onsubmit: async (e: Event) => {
    e.preventDefault();
    try {
      const k = await call<KeyRecord>('POST', '/v2/admin/developer-keys', { body: newLabel.value.trim() ? { label: newLabel.value.trim() } : {} });
      const secret = k.key ?? '';
      secretBox.hidden = false;
      secretBox.replaceChildren(h('p', {}, `Key “${k.label}” created. Copy its secret now: it is shown only once.`),
        h('code', { id: 'secret-value' }, secret),
        h('button', { type: 'button', onclick: async () => notice.show((await copyText(secret)) ? 'Secret copied.' : 'Select the secret and copy it.', 'ok') }, 'Copy secret'),
        h('button', { type: 'button', onclick: () => { secretBox.hidden = true; secretBox.replaceChildren(); } }, 'Done'));
      newLabel.value = '';
      await loadKeys();
    } catch (err) {
      fail(err);
    }
  } }, field('New key name', newLabel), h('button', { type: 'submit', class: 'primary' }, 'Create key'));

  const to = h('input', { type: 'date', id: 'range-end', value: isoDay(Date.now()) });
  const from = h('input', { type: 'date', id: 'range-start', value: isoDay(Date.now() - 13 * DAY) });

  async function loadCharts(): Promise<void> {
    const start = Date.parse(from.value);
    const end = Date.parse(to.value) + DAY; // the end day is included
    if (!(end > start)) return notice.show('The range must start before it ends.', 'error');
    const q = `start_date=${isoDay(start)}&end_date=${isoDay(end)}`;
    const [byDay, tags] = await Promise.all([
      call<{ usage_report: { key_and_day_usages?: KeyUsage[] } }>('GET', `/v2/admin/analytics?${q}&group_by=key_and_day`),
      call<{ custom_tag_usage_report: { usage: { custom_tag: string; breakdown: Usage }[] } }>('GET', `/v2/admin/analytics/custom-tags?${q}&aggregate_by=period`),
    ]);
    const rows = byDay.usage_report.key_and_day_usages ?? [];
    const days: string[] = [];
    for (let t = start; t < end; t += DAY) days.push(isoDay(t));
    const perDay = (pick: (u: Usage) => number) => days.map((d) => rows.filter((r) => r.usage_date?.startsWith(d)).reduce((s, r) => s + pick(r.usage), 0));
    const keyNames = [...new Set(rows.map((r) => `${r.api_key_label} (${r.api_key})`))];
    const perKey = keyNames.map((n) => rows.filter((r) => `${r.api_key_label} (${r.api_key})` === n).reduce((s, r) => s + r.usage.total_characters, 0));
    const tagRows = tags.custom_tag_usage_report.usage;
    charts.replaceChildren(
      barChart('Characters per day by service', days.map((d) => d.slice(5)), [
        { name: 'Text translation', values: perDay((u) => u.text_translation_characters) },
        { name: 'Documents', values: perDay((u) => u.document_translation_characters) },
        { name: 'Text improvement', values: perDay((u) => u.text_improvement_characters) },
      ], 'characters'),
      rows.some((r) => r.usage.speech_to_text_minutes > 0)
        ? barChart('Voice minutes per day', days.map((d) => d.slice(5)), [{ name: 'Speech to text', values: perDay((u) => u.speech_to_text_minutes) }], 'minutes')
        : h('p', { class: 'hint' }, 'No voice minutes in this range.'),
      barChart('Characters per key', keyNames, [{ name: 'All services', values: perKey }], 'characters'),
      tagRows.length
        ? barChart('Characters per reporting tag', tagRows.map((t) => t.custom_tag), [{ name: 'All services', values: tagRows.map((t) => t.breakdown.total_characters) }], 'characters')
        : h('p', { class: 'hint' }, 'No usage with a reporting tag in this range.'),
    );
  }
  const rangeForm = h('form', { class: 'toolbar', onsubmit: (e: Event) => {
    e.preventDefault();
    void Promise.all([loadCharts(), loadQuota()]).catch(fail);
  } }, field('From', from), field('To', to), h('button', { type: 'submit', id: 'refresh-usage' }, 'Show usage'));

  await Promise.all([loadQuota(), loadKeys(), loadCharts()]).catch(fail);
  return h('section', { class: 'view', 'aria-labelledby': 'admin-title' },
    h('h2', { id: 'admin-title' }, 'Admin console'),
    notice.el,
    quota,
    h('div', { class: 'card' }, h('h3', {}, 'Developer keys'), createForm, secretBox,
      h('div', { class: 'scroll' }, h('table', { class: 'list cards', id: 'keys' },
        h('thead', {}, h('tr', {}, ...['Name', 'Created', 'Limits and use this billing period', 'Scopes', 'Status'].map((c) => h('th', { scope: 'col' }, c)))), keysBody))),
    h('div', { class: 'card' }, h('h3', {}, 'Usage'), rangeForm, charts));
}

// The admin console's developer keys: create (the secret shown once), rename, limits, scopes, deactivate after a
// confirmation that says it is permanent, and Replace on a deactivated key: the API cannot turn a key back on (the
// reference: "deactivation is permanent, a new key must be created to restore access"), so Replace creates a new key
// with the old one's name, limits and scopes. The table is updated in place, row by row, so that a refresh of the
// figures never takes away what the person is typing or the focus.
import { call } from './api.js';
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

/** The endpoint groups a key can be limited to (src/admin/scopes.ts). */
const SCOPES = ['translate', 'document', 'detect', 'glossary', 'style_rules', 'translation_memory', 'write', 'usage', 'languages'];
const minutes = (ms: number) => (ms / 60_000).toLocaleString(undefined, { maximumFractionDigits: 1 });
const count = (n: number) => n.toLocaleString();

/** A key's use of one limit this billing period, under the limit's unit: "14 of 20 used", marked once reached. */
function showUsed(el: HTMLElement, amount: number, limit: number | null, show: (n: number) => string): void {
  const reached = limit !== null && amount >= limit;
  el.className = reached ? 'used over' : 'used';
  el.textContent = `${show(amount)}${limit === null ? '' : ` of ${show(limit)}`} used${reached ? ', limit reached' : ''}`;
}

/** Everything a row shows but the usage figures: a row is drawn again only when this changes. */
const settings = ({ usage: _usage, key: _key, ...rest }: KeyRecord) => JSON.stringify(rest);

export interface KeyTable {
  el: HTMLElement;
  /** Reads the keys again: changed rows are redrawn, the others keep their inputs and only update their figures. */
  load(): Promise<void>;
}

export function keyTable(notice: Notice, fail: (err: unknown) => void): KeyTable {
  const body = h('tbody');
  const empty = h('tr', {}, h('td', { colspan: 5 }, 'No developer keys yet.'));
  const secretBox = h('div', { id: 'new-secret', hidden: true, class: 'card secret', role: 'status' });
  const rows = new Map<string, { settings: string; el: HTMLTableRowElement }>();

  async function load(): Promise<void> {
    const keys = await call<KeyRecord[]>('GET', '/v2/admin/developer-keys');
    const wanted: HTMLTableRowElement[] = keys.map((k) => {
      const known = rows.get(k.key_id);
      if (known?.settings === settings(k)) {
        updateUsage(k);
        return known.el;
      }
      const el = keyRow(k);
      rows.set(k.key_id, { settings: settings(k), el });
      if (known) refocus(known.el, el);
      return el;
    });
    if (wanted.length === 0) wanted.push(empty);
    // Only rows that are new or moved are inserted: moving a row that holds the focus would drop it.
    wanted.forEach((el, i) => body.children[i] !== el && body.insertBefore(el, body.children[i] ?? null));
    while (body.children.length > wanted.length) body.lastElementChild!.remove();
  }

  function updateUsage(k: KeyRecord): void {
    const usage = k.usage ?? { characters: 0, speech_to_text_milliseconds: 0 };
    const chars = document.getElementById(`chars-used-${k.key_id}`);
    const voice = document.getElementById(`minutes-used-${k.key_id}`);
    if (chars) showUsed(chars, usage.characters, k.usage_limits.characters, count);
    if (voice) showUsed(voice, usage.speech_to_text_milliseconds, k.usage_limits.speech_to_text_milliseconds, minutes);
  }

  /** A redrawn row takes the focus where the old one had it (the button just pressed, say), its scopes left open. */
  function refocus(old: HTMLElement, next: HTMLElement): void {
    const focusable = (row: HTMLElement) => [...row.querySelectorAll<HTMLElement>('input, button, summary')];
    const at = focusable(old).indexOf(document.activeElement as HTMLElement);
    const opened = [...old.querySelectorAll('details')].map((d) => d.open);
    next.querySelectorAll('details').forEach((d, i) => (d.open = opened[i] ?? false));
    old.replaceWith(next);
    if (at >= 0) (focusable(next)[at] ?? focusable(next).at(-1))?.focus();
  }

  function showSecret(k: KeyRecord, intro: string): void {
    const secret = k.key ?? '';
    secretBox.hidden = false;
    secretBox.replaceChildren(h('p', {}, `${intro} Copy its secret now: it is shown only once.`),
      h('code', { id: 'secret-value' }, secret),
      h('button', { type: 'button', onclick: async () => notice.show((await copyText(secret)) ? 'Secret copied.' : 'Select the secret and copy it.', 'ok') }, 'Copy secret'),
      h('button', { type: 'button', onclick: () => { secretBox.hidden = true; secretBox.replaceChildren(); } }, 'Done'));
  }

  /** A new key with a deactivated key's name, limits and scopes; its secret shown as on creation. */
  async function replace(old: KeyRecord): Promise<void> {
    let k: KeyRecord;
    try {
      k = await call<KeyRecord>('POST', '/v2/admin/developer-keys', { body: { label: old.label, scopes: old.scopes } });
    } catch (err) {
      return fail(err);
    }
    const { characters, speech_to_text_milliseconds } = old.usage_limits;
    let limitsFailed: unknown;
    if (characters !== null || speech_to_text_milliseconds !== null) {
      // The secret is known to no one before it is shown below, so the key cannot be used before its limits are set.
      await call('PUT', '/v2/admin/developer-keys/limits', { body: { key_id: k.key_id, characters, speech_to_text_milliseconds } })
        .catch((err: unknown) => (limitsFailed = err));
    }
    showSecret(k, `Key “${k.label}” created to replace the deactivated one${limitsFailed ? ', with its scopes' : ', with the same limits and scopes'}. ` +
      'A deactivated key can never be turned back on, so access comes back with this new key: give its secret to the programs that used the old one.');
    await load().catch(fail);
    if (limitsFailed) fail(new Error(`The limits of the new key “${k.label}” could not be set (${limitsFailed instanceof Error ? limitsFailed.message : String(limitsFailed)}); set them in the table before handing the key out.`));
    else notice.show(`Key “${k.label}” replaced by a new key.`, 'ok');
  }

  function keyRow(k: KeyRecord): HTMLTableRowElement {
    const done = { label: 'renamed', limits: 'limits set', scopes: 'scopes set', deactivate: 'deactivated' };
    const put = (what: keyof typeof done, body: object) =>
      call('PUT', `/v2/admin/developer-keys/${what}`, { body: { key_id: k.key_id, ...body } }).then(async () => {
        await load(); // said once the table shows it
        notice.show(`Key “${k.label}”: ${done[what]}.`, 'ok');
      }, fail);
    const label = h('input', { value: k.label, 'aria-label': `Name of key ${k.label}`, disabled: k.is_deactivated });
    const charsUsed = h('span', { id: `chars-used-${k.key_id}` });
    const limit = h('input', { type: 'number', min: 0, value: k.usage_limits.characters ?? '', placeholder: 'no limit',
      'aria-label': `Character limit of key ${k.label}`, 'aria-describedby': charsUsed.id, disabled: k.is_deactivated, class: 'limit' });
    const speechMs = k.usage_limits.speech_to_text_milliseconds;
    const minutesUsed = h('span', { id: `minutes-used-${k.key_id}` });
    const minutesLimit = h('input', { type: 'number', min: 0, value: speechMs === null ? '' : speechMs / 60_000, placeholder: 'no limit',
      'aria-label': `Voice minutes limit of key ${k.label}`, 'aria-describedby': minutesUsed.id, disabled: k.is_deactivated, class: 'limit' });
    const usage = k.usage ?? { characters: 0, speech_to_text_milliseconds: 0 };
    showUsed(charsUsed, usage.characters, k.usage_limits.characters, count);
    showUsed(minutesUsed, usage.speech_to_text_milliseconds, speechMs, minutes);
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
    const status = k.is_deactivated
      ? [h('span', { class: 'state' }, 'Deactivated (permanent)'),
        h('button', { type: 'button', 'aria-label': `Replace key ${k.label}`, title: 'Create a new key with this name, these limits and scopes',
          onclick: () => void replace(k) }, 'Replace')]
      : [h('button', { type: 'button', class: 'danger', 'aria-label': `Deactivate key ${k.label}`, onclick: () => {
        if (confirm(`Deactivate the key “${k.label}”? Programs using it stop working at once. Deactivation is permanent: the key can never be turned back on. ` +
          'To restore access later, use Replace on the deactivated key: it creates a new key, with a new secret, with the same name, limits and scopes.')) void put('deactivate', {});
      } }, 'Deactivate')];
    const cell = (name: string, ...children: (Node | string | null)[]) => h('td', { 'data-label': name }, ...children);
    return h('tr', { class: k.is_deactivated ? 'inactive' : '' },
      cell('Name', label, k.is_deactivated ? null : h('button', { type: 'button', onclick: () => void put('label', { label: label.value }) }, 'Rename')),
      cell('Created', new Date(k.creation_time).toLocaleDateString()),
      cell('Limits and use this billing period',
        h('span', { class: 'limits' }, limit, h('span', { class: 'hint' }, 'characters', charsUsed),
          minutesLimit, h('span', { class: 'hint' }, 'voice minutes', minutesUsed)),
        k.is_deactivated ? null : h('button', { type: 'button',
          onclick: () => void put('limits', { characters: orNull(limit), speech_to_text_milliseconds: orNull(minutesLimit, 60_000) }) }, 'Set limits')),
      cell('Scopes', scopes),
      cell('Status', ...status));
  }

  const newLabel = h('input', { id: 'new-key-label', maxlength: 255, placeholder: 'e.g. Marketing site' });
  const createForm = h('form', { class: 'toolbar', onsubmit: async (e: Event) => {
    e.preventDefault();
    try {
      const k = await call<KeyRecord>('POST', '/v2/admin/developer-keys', { body: newLabel.value.trim() ? { label: newLabel.value.trim() } : {} });
      showSecret(k, `Key “${k.label}” created.`);
      newLabel.value = '';
      await load();
    } catch (err) {
      fail(err);
    }
  } }, field('New key name', newLabel), h('button', { type: 'submit', class: 'primary' }, 'Create key'));

  const el = h('div', { class: 'card' }, h('h3', {}, 'Developer keys'), createForm, secretBox,
    h('div', { class: 'scroll' }, h('table', { class: 'list cards', id: 'keys' },
      h('thead', {}, h('tr', {}, ...['Name', 'Created', 'Limits and use this billing period', 'Scopes', 'Status'].map((c) => h('th', { scope: 'col' }, c)))), body)));
  return { el, load };
}

// Glossaries (v3, multilingual): list, create, edit one dictionary per language pair in a table, import a TSV/CSV
// file (parsed by the server, as the API does) and export one.
import { ApiError, call, type GlossaryInfo } from './api.js';
import { Notice, field, h, languageName, saveFile } from './dom.js';

type Pair = { source_lang: string; target_lang: string };

const pairLabel = (d: Pair) => `${d.source_lang.toUpperCase()} → ${d.target_lang.toUpperCase()}`;
/** Words a header row of an exported or hand-made TSV/CSV uses instead of terms. */
const HEADER_WORDS = new Set(['source', 'target', 'source term', 'target term', 'source_lang', 'target_lang', 'term', 'translation', 'from', 'to']);

/** The file without its first line when that line is a header (column names, or the dictionary's language codes). */
function withoutHeader(text: string, pair: Pair): { entries: string; header: boolean } {
  const end = text.indexOf('\n');
  const first = (end < 0 ? text : text.slice(0, end)).replace(/\r$/, '');
  const cells = first.split(/[\t,]/).map((c) => c.trim().replace(/^"|"$/g, '').toLowerCase());
  const codes = new Set([pair.source_lang.toLowerCase(), pair.target_lang.toLowerCase()]);
  const header = cells.length === 2 && cells.every((c) => HEADER_WORDS.has(c) || codes.has(c));
  return header ? { entries: end < 0 ? '' : text.slice(end + 1), header } : { entries: text, header };
}

const csvCell = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

export async function glossariesView(): Promise<HTMLElement> {
  const notice = new Notice();
  const fail = (err: unknown) => notice.show(err instanceof ApiError ? err.message : String(err), 'error');
  const pairs = (await call<{ supported_languages: Pair[] }>('GET', '/v2/glossary-language-pairs')).supported_languages;
  const langs = (side: keyof Pair) => [...new Set(pairs.map((p) => p[side]))].sort();
  const listBody = h('tbody');
  const editor = h('div', { class: 'editor' });

  async function refresh(): Promise<void> {
    const { glossaries } = await call<{ glossaries: GlossaryInfo[] }>('GET', '/v3/glossaries');
    listBody.replaceChildren(...glossaries.map((g) => h('tr', {},
      h('td', { 'data-label': 'Name' }, g.name),
      h('td', { 'data-label': 'Dictionaries' }, g.dictionaries.map((d) => `${pairLabel(d)} (${d.entry_count})`).join(', ')),
      h('td', { 'data-label': 'Created' }, new Date(g.creation_time).toLocaleDateString()),
      h('td', { 'data-label': 'Actions' },
        h('button', { type: 'button', 'aria-label': `Edit ${g.name}`, onclick: () => void edit(g).catch(fail) }, 'Edit'),
        h('button', { type: 'button', class: 'danger', 'aria-label': `Delete ${g.name}`, onclick: async () => {
          if (!confirm(`Delete the glossary “${g.name}”?`)) return;
          await call('DELETE', `/v3/glossaries/${g.glossary_id}`).catch(fail);
          editor.replaceChildren();
          editor.className = 'editor';
          await refresh();
        } }, 'Delete')))));
    if (glossaries.length === 0) listBody.append(h('tr', {}, h('td', { colspan: 4 }, 'No glossaries yet.')));
  }

  function pairSelectors(prefix: string) {
    // languages by name, in alphabetical order of the names, each with its code
    const choices = (side: 'source_lang' | 'target_lang') =>
      langs(side)
        .map((l): [string, string] => [l, `${languageName(l)} (${l.toUpperCase()})`])
        .sort((a, b) => a[1].localeCompare(b[1]))
        .map(([l, label]) => h('option', { value: l }, label));
    const from = h('select', { id: `${prefix}-source` }, ...choices('source_lang'));
    const to = h('select', { id: `${prefix}-target` }, ...choices('target_lang'));
    from.value = langs('source_lang').includes('en') ? 'en' : from.value;
    to.value = langs('target_lang').includes('es') ? 'es' : to.value;
    return { from, to };
  }

  /** An editable table of one dictionary's entries. */
  function entriesTable(entries: [string, string][]) {
    const body = h('tbody');
    const addRow = (s = '', t = '') => {
      const row = h('tr', {},
        h('td', {}, h('input', { value: s, 'aria-label': 'Source term', class: 'term-source' })),
        h('td', {}, h('input', { value: t, 'aria-label': 'Target term', class: 'term-target' })),
        h('td', {}, h('button', { type: 'button', 'aria-label': 'Remove entry', onclick: () => row.remove() }, '✕')));
      body.append(row);
    };
    const reset = (rows: [string, string][]) => {
      body.replaceChildren();
      rows.forEach(([s, t]) => addRow(s, t));
      if (rows.length === 0) addRow();
    };
    reset(entries);
    const table = h('table', { class: 'entries' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Source term'), h('th', { scope: 'col' }, 'Target term'), h('th', {}, ''))), body);
    const tsv = () => [...body.rows]
      .map((r) => [...r.querySelectorAll('input')].map((i) => i.value.trim()))
      .filter(([s, t]) => s && t)
      .map(([s, t]) => `${s}\t${t}`)
      .join('\n');
    return { table, addRow, tsv, reset };
  }

  async function edit(g: GlossaryInfo, chosen?: Pair): Promise<void> {
    notice.clear();
    const dict = chosen ?? g.dictionaries[0];
    // A pair being added is edited locally until it is saved with its first entries.
    const saved = dict !== undefined && g.dictionaries.some((d) => pairLabel(d) === pairLabel(dict));
    const pairs = saved || !dict ? g.dictionaries : [...g.dictionaries, dict];
    const pick = h('select', { id: 'dictionary' }, ...pairs.map((d, i) => h('option', { value: i }, pairLabel(d))));
    if (dict) pick.value = String(pairs.findIndex((d) => pairLabel(d) === pairLabel(dict)));
    pick.addEventListener('change', () => void edit(g, pairs[Number(pick.value)]).catch(fail));
    let rows: [string, string][] = [];
    if (dict && saved) {
      const q = `source_lang=${dict.source_lang}&target_lang=${dict.target_lang}`;
      const res = await call<{ dictionaries: { entries: string }[] }>('GET', `/v3/glossaries/${g.glossary_id}/entries?${q}`);
      rows = (res.dictionaries[0]?.entries ?? '').split('\n').filter(Boolean).map((l) => l.split('\t') as [string, string]);
    }
    const t = entriesTable(rows);
    /** The glossary as stored now, listed and opened again on `pair`. */
    const reopen = async (pair?: Pair) => {
      const fresh = await call<GlossaryInfo>('GET', `/v3/glossaries/${g.glossary_id}`);
      await refresh();
      await edit(fresh, pair);
    };
    const put = async (pair: Pair, entries: string, format: 'tsv' | 'csv') => {
      await call('PUT', `/v3/glossaries/${g.glossary_id}/dictionaries`, { body: { ...pair, entries, entries_format: format } });
      await reopen(pair);
    };
    const newName = h('input', { id: 'glossary-rename', value: g.name, maxlength: 1024, required: true });
    const rename = h('form', { class: 'toolbar', onsubmit: (e: Event) => {
      e.preventDefault();
      const name = newName.value.trim();
      if (!name || name === g.name) return;
      void call('PATCH', `/v3/glossaries/${g.glossary_id}`, { body: { name } })
        .then(() => reopen(dict))
        .then(() => notice.show(`Glossary renamed “${name}”.`, 'ok'), fail);
    } }, field('Name', newName), h('button', { type: 'submit' }, 'Rename'));
    const importer = h('input', { type: 'file', accept: '.tsv,.csv,.txt', id: 'import-file', class: 'visually-hidden' });
    // Importing adds to the dictionary unless the user chooses to replace it (the entries shown are then gone).
    const importMode = h('select', { id: 'import-mode' },
      h('option', { value: 'merge' }, 'Add to the dictionary'),
      h('option', { value: 'replace' }, 'Replace the dictionary'));
    importer.addEventListener('change', async () => {
      const file = importer.files?.[0];
      importer.value = '';
      if (!file || !dict) return;
      const format = /\.csv$/i.test(file.name) ? 'csv' : 'tsv';
      const { entries, header } = withoutHeader(await file.text(), dict);
      const replace = importMode.value === 'replace';
      if (replace && saved && !confirm(`Replace every entry of the ${pairLabel(dict)} dictionary with ${file.name}?`)) return;
      const done = `${replace ? 'Replaced the dictionary with' : 'Added the entries of'} ${file.name}${header ? ' (its header row skipped)' : ''}.`;
      const write = replace || !saved
        ? put(dict, entries, format)
        : call('PATCH', `/v3/glossaries/${g.glossary_id}`, { body: { dictionaries: [{ ...dict, entries, entries_format: format }] } }).then(() => reopen(dict));
      await write.then(() => notice.show(done, 'ok'), fail);
    });
    const exportAs = (format: 'tsv' | 'csv') => {
      const text = format === 'tsv' ? t.tsv() : t.tsv().split('\n').map((l) => l.split('\t').map(csvCell).join(',')).join('\n');
      saveFile(`${g.name}.${dict ? `${dict.source_lang}-${dict.target_lang}` : ''}.${format}`, new Blob([text + '\n'], { type: 'text/plain' }));
    };
    const add = pairSelectors('add-dict');
    editor.className = 'editor card';
    editor.replaceChildren(h('h3', {}, `Edit “${g.name}”`), rename,
      dict ? h('div', {},
        h('div', { class: 'toolbar' }, field('Dictionary', pick),
          saved && field('On import', importMode, h('span', { class: 'hint' }, 'terms already there are updated')),
          h('label', { class: 'button', for: 'import-file', tabindex: 0, role: 'button',
            onkeydown: (e: Event) => ['Enter', ' '].includes((e as KeyboardEvent).key) && (e.preventDefault(), importer.click()) }, 'Import TSV/CSV'), importer,
          h('button', { type: 'button', onclick: () => exportAs('tsv') }, 'Export TSV'),
          h('button', { type: 'button', onclick: () => exportAs('csv') }, 'Export CSV')),
        t.table,
        h('div', { class: 'row' },
          h('button', { type: 'button', onclick: () => t.addRow() }, 'Add entry'),
          h('button', { type: 'button', class: 'primary', id: 'save-entries', onclick: () =>
            void put(dict, t.tsv(), 'tsv').then(() => notice.show('Dictionary saved.', 'ok'), fail) }, 'Save dictionary'),
          saved && h('button', { type: 'button', class: 'danger', onclick: async () => {
            if (!confirm(`Delete the ${pairLabel(dict)} dictionary?`)) return;
            await call('DELETE', `/v3/glossaries/${g.glossary_id}/dictionaries?source_lang=${dict.source_lang}&target_lang=${dict.target_lang}`)
              .then(async () => { await refresh(); editor.replaceChildren(); editor.className = 'editor'; }, fail);
          } }, 'Delete dictionary'))) : h('p', {}, 'This glossary has no dictionary yet.'),
      h('form', { class: 'toolbar', onsubmit: (e: Event) => {
        e.preventDefault();
        const pair = { source_lang: add.from.value, target_lang: add.to.value };
        if (g.dictionaries.some((d) => pairLabel(d) === pairLabel(pair))) return notice.show('This glossary already has that pair: one dictionary per pair.', 'error');
        void edit(g, pair).catch(fail);
      } }, field('New pair from', add.from), field('to', add.to), h('button', { type: 'submit' }, 'Add dictionary')));
  }

  const name = h('input', { id: 'glossary-name', required: true, maxlength: 1024 });
  const create = pairSelectors('new-glossary');
  const first = entriesTable([]);
  const form = h('form', { class: 'card', 'aria-labelledby': 'new-glossary-title', onsubmit: async (e: Event) => {
    e.preventDefault();
    const entries = first.tsv();
    if (!entries) return notice.show('Add at least one entry (a source term and its translation).', 'error');
    try {
      const g = await call<GlossaryInfo>('POST', '/v3/glossaries', {
        body: { name: name.value.trim(), dictionaries: [{ source_lang: create.from.value, target_lang: create.to.value, entries, entries_format: 'tsv' }] },
      });
      notice.show(`Glossary “${g.name}” created.`, 'ok');
      name.value = '';
      first.reset([]);
      await refresh();
    } catch (err) {
      fail(err);
    }
  } },
  h('h3', { id: 'new-glossary-title' }, 'New glossary'),
  h('div', { class: 'toolbar' }, field('Name', name), field('From', create.from), field('To', create.to)),
  first.table,
  h('div', { class: 'row' }, h('button', { type: 'button', onclick: () => first.addRow() }, 'Add entry'), h('button', { type: 'submit', class: 'primary' }, 'Create glossary')));

  await refresh();
  return h('section', { class: 'view', 'aria-labelledby': 'glossaries-title' },
    h('h2', { id: 'glossaries-title' }, 'Glossaries'),
    notice.el,
    h('div', { class: 'scroll' }, h('table', { class: 'list cards' }, h('caption', { class: 'visually-hidden' }, 'Your glossaries'),
      h('thead', {}, h('tr', {}, ...['Name', 'Dictionaries', 'Created', 'Actions'].map((c) => h('th', { scope: 'col' }, c)))), listBody)),
    editor, form);
}

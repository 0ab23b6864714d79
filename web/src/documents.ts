// Documents: drop or pick files, choose the target and options, watch upload progress and the translation status
// (seconds_remaining), download. Each document's key stays in this page's memory only.
import { ApiError, call, glossariesFor, glossaryOptions, loadGlossaries, loadLanguages, upload, type Session } from './api.js';
import { Notice, field, formatBytes, h, saveFile } from './dom.js';

interface Status {
  status: 'queued' | 'translating' | 'done' | 'error';
  seconds_remaining?: number;
  billed_characters?: number;
  error_message?: string;
}

const POLL_MS = 1000;

function translatedName(name: string, target: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)}.${target.toLowerCase()}${name.slice(dot)}` : `${name}.${target.toLowerCase()}`;
}

export async function documentsView(session: Session): Promise<HTMLElement> {
  const notice = new Notice();
  const { sources, targets } = await loadLanguages();
  const source = h('select', { id: 'doc-source-lang' },
    h('option', { value: '' }, 'Detect language'), ...sources.map((l) => h('option', { value: l.language }, l.name)));
  const target = h('select', { id: 'doc-target-lang' }, ...targets.map((l) => h('option', { value: l.language }, l.name)));
  target.value = targets.find((t) => t.language === 'ES')?.language ?? targets[0]?.language ?? '';
  const formality = h('select', { id: 'doc-formality' },
    h('option', { value: '' }, 'Default formality'), h('option', { value: 'prefer_more' }, 'More formal'), h('option', { value: 'prefer_less' }, 'Less formal'));
  const glossaries = await loadGlossaries(session);
  const glossary = h('select', { id: 'doc-glossary' });
  const formalityField = field('Formality', formality);
  // Options follow the pair: formality only where the target has it, glossaries with a dictionary for the pair.
  const refreshGlossaries = () => {
    formalityField.hidden = !targets.find((t) => t.language === target.value)?.supports_formality;
    if (formalityField.hidden) formality.value = '';
    glossaryOptions(glossary, glossariesFor(glossaries, source.value, target.value), source.value);
  };
  source.addEventListener('change', refreshGlossaries);
  target.addEventListener('change', refreshGlossaries);
  refreshGlossaries();
  const extensions = session.document_formats.flatMap((f) => f.extensions);
  const picker = h('input', { type: 'file', id: 'doc-file', multiple: true, accept: extensions.map((e) => `.${e}`).join(','), class: 'visually-hidden' });
  const list = h('ul', { class: 'doc-list', 'aria-label': 'Documents' });

  function start(file: File): void {
    const ext = /\.([^.]+)$/.exec(file.name)?.[1]?.toLowerCase() ?? '';
    const format = session.document_formats.find((f) => f.extensions.includes(ext));
    const progress = h('progress', { max: 1, value: 0, 'aria-label': `Progress of ${file.name}` });
    const state = h('span', { class: 'doc-state' }, 'Uploading…');
    const actions = h('span', { class: 'doc-actions' });
    list.prepend(h('li', { class: 'doc' }, h('strong', {}, file.name), h('span', { class: 'hint' }, formatBytes(file.size)), progress, state, actions));
    const fail = (message: string) => {
      state.textContent = message;
      state.className = 'doc-state error';
      progress.hidden = true;
    };
    if (!format) return fail(`Not a supported format (.${ext || '?'}).`);
    if (file.size > format.max_bytes) return fail(`Too large: .${ext} files may be at most ${formatBytes(format.max_bytes)}.`);
    const to = target.value;
    const form = new FormData();
    form.append('target_lang', to);
    if (source.value) form.append('source_lang', source.value);
    if (formality.value) form.append('formality', formality.value);
    if (glossary.value) form.append('glossary_id', glossary.value);
    form.append('file', file, file.name);
    void (async () => {
      try {
        const handle = await upload<{ document_id: string; document_key: string }>('/v2/document', form, (f) => (progress.value = f));
        progress.removeAttribute('value'); // indeterminate while the server works
        const body = { document_key: handle.document_key };
        for (;;) {
          const s = await call<Status>('POST', `/v2/document/${handle.document_id}`, { body });
          if (s.status === 'error') return fail(`Translation failed: ${s.error_message ?? 'unknown error'}`);
          if (s.status === 'done') {
            progress.value = 1;
            state.textContent = `Done${s.billed_characters !== undefined ? ` · ${s.billed_characters.toLocaleString()} characters billed on download` : ''}`;
            const name = translatedName(file.name, to);
            actions.replaceChildren(h('button', {
              type: 'button',
              'aria-label': `Download ${name}`,
              onclick: async (e: Event) => {
                const button = e.currentTarget as HTMLButtonElement;
                button.disabled = true;
                try {
                  const res = await call<Response>('POST', `/v2/document/${handle.document_id}/result`, { body, raw: true });
                  saveFile(name, await res.blob());
                  state.textContent = 'Downloaded (the server has deleted its copy).';
                  button.remove();
                } catch (err) {
                  button.disabled = false;
                  notice.show(err instanceof ApiError ? err.message : String(err), 'error');
                }
              },
            }, 'Download'));
            return;
          }
          state.textContent = s.status === 'queued' ? 'Queued…' : `Translating…${s.seconds_remaining !== undefined ? ` about ${s.seconds_remaining} s left` : ''}`;
          await new Promise((r) => setTimeout(r, POLL_MS));
        }
      } catch (err) {
        fail(err instanceof ApiError ? err.message : String(err));
      }
    })();
  }
  const startAll = (files: FileList | null | undefined) => [...(files ?? [])].forEach(start);
  picker.addEventListener('change', () => {
    startAll(picker.files);
    picker.value = '';
  });

  const drop = h('div', { class: 'drop', id: 'drop-zone' },
    h('p', {}, 'Drop documents here, or '),
    h('label', { class: 'button', for: 'doc-file', tabindex: 0, role: 'button',
      onkeydown: (e: Event) => ['Enter', ' '].includes((e as KeyboardEvent).key) && (e.preventDefault(), picker.click()) }, 'choose files'),
    picker);
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    startAll(e.dataTransfer?.files);
  });

  const formats = h('table', { class: 'formats' },
    h('caption', {}, 'Formats and upload limits'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Extensions'), h('th', { scope: 'col' }, 'Largest upload'))),
    h('tbody', {}, ...session.document_formats.map((f) =>
      h('tr', {}, h('td', {}, f.extensions.map((e) => `.${e}`).join(' ')), h('td', {}, formatBytes(f.max_bytes))))));

  return h('section', { class: 'view', 'aria-labelledby': 'documents-title' },
    h('h2', { id: 'documents-title' }, 'Translate documents'),
    h('div', { class: 'toolbar' }, field('From', source), field('To', target), formalityField, field('Glossary', glossary)),
    drop, notice.el, list, h('details', {}, h('summary', {}, 'Supported formats'), formats));
}

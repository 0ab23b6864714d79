// Documents: drop or pick files, choose the target and options, watch upload progress and the translation status
// (seconds_remaining, counted down between polls), download. Each job's id and key are kept in the tab's
// sessionStorage (as the API key is), so a reload or a switch of views lists it again until downloaded or expired.
import { ApiError, call, glossariesFor, glossaryOptions, loadGlossaries, loadLanguages, upload, type Session } from './api.js';
import { Notice, field, formatBytes, h, saveFile } from './dom.js';

interface Status {
  status: 'queued' | 'translating' | 'done' | 'error';
  seconds_remaining?: number;
  billed_characters?: number;
  error_message?: string;
}

const POLL_MS = 1000;
const JOBS = 'tolk.documents';

/** A document job as the tab remembers it: enough to poll it and download the result. */
interface StoredJob {
  id: string;
  key: string;
  name: string;
  size: number;
  /** The translated file's name. */
  output: string;
}

const storedJobs = (): StoredJob[] => JSON.parse(sessionStorage.getItem(JOBS) ?? '[]') as StoredJob[];
function remember(job: StoredJob): void {
  sessionStorage.setItem(JOBS, JSON.stringify([...storedJobs().filter((j) => j.id !== job.id), job]));
}
function forget(id: string): void {
  sessionStorage.setItem(JOBS, JSON.stringify(storedJobs().filter((j) => j.id !== id)));
}

/**
 * The server's estimate counted down between polls: a value repeated by several polls keeps falling, never below
 * 1 s ("almost done" after that) instead of freezing.
 */
function countdown(): (seconds: number | undefined) => string {
  let last: { value: number; at: number } | undefined;
  return (seconds) => {
    if (seconds === undefined) return '';
    if (last?.value !== seconds) last = { value: seconds, at: Date.now() };
    const left = Math.round(seconds - (Date.now() - last.at) / 1000);
    return left >= 1 ? ` about ${left} s left` : ' almost done';
  };
}

function translatedName(name: string, target: string, outputExtension?: string): string {
  const dot = name.lastIndexOf('.');
  const ext = outputExtension ? `.${outputExtension}` : dot > 0 ? name.slice(dot) : '';
  return dot > 0 ? `${name.slice(0, dot)}.${target.toLowerCase()}${ext}` : `${name}.${target.toLowerCase()}${ext}`;
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
  // PDFs can come back as Word documents (output_format=docx), which are easier to edit than a rebuilt PDF.
  const pdfOutput = h('select', { id: 'doc-pdf-output' }, h('option', { value: '' }, 'PDF'), h('option', { value: 'docx' }, 'Word (.docx)'));
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
  // opened by the drop zone's own button (keyboard and mouse): the hidden input is no Tab stop of its own
  const picker = h('input', { type: 'file', id: 'doc-file', multiple: true, accept: extensions.map((e) => `.${e}`).join(','), class: 'visually-hidden', tabindex: -1 });
  const list = h('ul', { class: 'doc-list', 'aria-label': 'Documents' });

  /** A row of the list: the file, its progress, what is happening, and its actions. */
  function entry(name: string, size: number, restored = false) {
    const progress = h('progress', { max: 1, value: 0, 'aria-label': `Progress of ${name}` });
    // a row restored after a reload was uploaded before: its status is being asked for
    const state = h('span', { class: 'doc-state' }, restored ? 'Checking…' : 'Uploading…');
    const actions = h('span', { class: 'doc-actions' });
    const item = h('li', { class: 'doc' }, h('strong', {}, name), h('span', { class: 'hint' }, formatBytes(size)), progress, state, actions);
    list.prepend(item);
    const fail = (message: string) => {
      state.textContent = message;
      state.className = 'doc-state error';
      progress.hidden = true;
    };
    return { item, progress, state, actions, fail };
  }

  /** Polls a job until done (then offers the download) or failed; stops when the view is left (the list rebuilt). */
  async function follow(job: StoredJob, row: ReturnType<typeof entry>): Promise<void> {
    const { item, progress, state, actions, fail } = row;
    progress.removeAttribute('value'); // indeterminate while the server works
    const body = { document_key: job.key };
    const left = countdown();
    // A status request is held by the server for a few seconds: between answers the estimate ticks down each second.
    let estimate: number | undefined;
    const ticker = setInterval(() => {
      if (estimate !== undefined) state.textContent = `Translating…${left(estimate)}`;
    }, 1000);
    try {
      for (;;) {
        const s = await call<Status>('POST', `/v2/document/${job.id}`, { body });
        if (s.status === 'error') {
          forget(job.id);
          return fail(`Translation failed: ${s.error_message ?? 'unknown error'}`);
        }
        if (s.status === 'done') {
          progress.value = 1;
          state.textContent = `Done${s.billed_characters !== undefined ? ` · ${s.billed_characters.toLocaleString()} characters billed on download` : ''}`;
          actions.replaceChildren(h('button', {
            type: 'button',
            'aria-label': `Download ${job.output}`,
            onclick: async (e: Event) => {
              const button = e.currentTarget as HTMLButtonElement;
              button.disabled = true;
              try {
                const res = await call<Response>('POST', `/v2/document/${job.id}/result`, { body, raw: true });
                saveFile(job.output, await res.blob());
                forget(job.id);
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
        estimate = s.status === 'translating' ? s.seconds_remaining : undefined;
        state.textContent = s.status === 'queued' ? 'Queued…' : `Translating…${left(estimate)}`;
        await new Promise((r) => setTimeout(r, POLL_MS));
        // The view was left (its list rebuilt, which polls the job again): this row stops.
        if (!item.isConnected) return;
      }
    } catch (err) {
      // Gone from the server: expired (retention), or downloaded from another tab.
      if (err instanceof ApiError && err.status === 404) forget(job.id);
      fail(err instanceof ApiError ? err.message : String(err));
    } finally {
      clearInterval(ticker);
    }
  }

  function start(file: File): void {
    const ext = /\.([^.]+)$/.exec(file.name)?.[1]?.toLowerCase() ?? '';
    const format = session.document_formats.find((f) => f.extensions.includes(ext));
    const row = entry(file.name, file.size);
    const { progress, fail } = row;
    if (!format) return fail(`Not a supported format (.${ext || '?'}).`);
    if (file.size > format.max_bytes) return fail(`Too large: .${ext} files may be at most ${formatBytes(format.max_bytes)}.`);
    const to = target.value;
    const form = new FormData();
    form.append('target_lang', to);
    if (source.value) form.append('source_lang', source.value);
    if (formality.value) form.append('formality', formality.value);
    if (glossary.value) form.append('glossary_id', glossary.value);
    const outputExtension = ext === 'pdf' && pdfOutput.value ? pdfOutput.value : undefined;
    if (outputExtension) form.append('output_format', outputExtension);
    form.append('file', file, file.name);
    void (async () => {
      try {
        const handle = await upload<{ document_id: string; document_key: string }>('/v2/document', form, (f) => (progress.value = f));
        const job = { id: handle.document_id, key: handle.document_key, name: file.name, size: file.size, output: translatedName(file.name, to, outputExtension) };
        remember(job);
        await follow(job, row);
      } catch (err) {
        fail(err instanceof ApiError ? err.message : String(err));
      }
    })();
  }
  for (const job of storedJobs()) void follow(job, entry(job.name, job.size, true));
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
    h('div', { class: 'toolbar' }, field('From', source), field('To', target), formalityField, field('Glossary', glossary), field('PDF as', pdfOutput)),
    drop, notice.el, list, h('details', {}, h('summary', {}, 'Supported formats'), formats));
}

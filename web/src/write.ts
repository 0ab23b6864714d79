// Write: improve text in its own language, correct (spelling, offline with Hunspell) or rephrase (the language-model
// engine, in a writing style or tone), through /v2/write/*. The result can be copied or taken back into the editor.
import { ApiError, Cancelled, call, type Session } from './api.js';
import { Notice, copyText, field, h, languageName } from './dom.js';

/** The languages /v2/write takes (src/write/write-request.ts), by name. */
const LANGUAGES: [string, string][] = [
  ['', 'Same as the text'], ['de', 'German'], ['en-gb', 'English (British)'], ['en-us', 'English (American)'], ['es', 'Spanish'],
  ['fr', 'French'], ['it', 'Italian'], ['ja', 'Japanese'], ['ko', 'Korean'], ['pt-br', 'Portuguese (Brazilian)'],
  ['pt-pt', 'Portuguese (European)'], ['zh-hans', 'Chinese (simplified)'],
];
const STYLES: [string, string][] = [
  ['', 'No particular style or tone'],
  ['writing_style=simple', 'Style: simple'], ['writing_style=business', 'Style: business'], ['writing_style=academic', 'Style: academic'],
  ['writing_style=casual', 'Style: casual'], ['tone=friendly', 'Tone: friendly'], ['tone=confident', 'Tone: confident'],
  ['tone=diplomatic', 'Tone: diplomatic'], ['tone=enthusiastic', 'Tone: enthusiastic'],
];
/** The reference limits text-improvement request bodies to 10 KiB. */
const LIMIT_BYTES = 10 * 1024;

const select = (id: string, items: [string, string][]) => h('select', { id }, ...items.map(([value, label]) => h('option', { value }, label)));

/** Why Rephrase is not offered: in words a person can act on (an administrator installs a model). */
const NO_MODEL =
  'Rephrasing needs a language model, and this server has none. An administrator can install one (tolk models install llm-NAME; see docs/models.md) or connect one (TOLK_LLM_URL).';

export async function writeView(session: Session): Promise<HTMLElement> {
  const notice = new Notice();
  const served = session.write_languages;
  const canRephrase = served.some((l) => l.rephrase);
  const modes: [string, string][] = [['correct', 'Correct spelling and grammar'], ...(canRephrase ? [['rephrase', 'Rephrase'] as [string, string]] : [])];
  const mode = select('write-mode', modes);
  const language = select('write-lang', []);
  const style = select('write-style', STYLES);
  const styleField = field('Style or tone', style);
  const noModel = h('p', { class: 'hint', id: 'write-no-model', hidden: canRephrase }, NO_MODEL);
  const input = h('textarea', { id: 'write-text', dir: 'auto', rows: 10, 'aria-label': 'Text to improve', placeholder: 'Type or paste text to improve' });
  const output = h('textarea', { id: 'write-result', dir: 'auto', rows: 10, readonly: true, 'aria-label': 'Improved text' });
  const progress = h('span', { class: 'busy-label', role: 'status', hidden: true }, 'Improving…');
  const improveButton = h('button', { type: 'button', class: 'primary', id: 'improve', onclick: () => void improve() }, 'Improve');
  const cancelButton = h('button', { type: 'button', id: 'improve-cancel', hidden: true, onclick: () => running?.abort() }, 'Cancel');
  let improvedFrom: string | null = null;
  /** The request under way: one at a time, so a result always belongs to the text it was asked for. */
  let running: AbortController | null = null;

  /** The languages this server improves in the chosen mode (a language model rephrases; Hunspell corrects). */
  function showMode(): void {
    const rephrase = mode.value === 'rephrase';
    styleField.hidden = !rephrase;
    const usable = new Set(served.filter((l) => (rephrase ? l.rephrase : l.correct)).map((l) => l.code));
    const previous = language.value;
    const items = LANGUAGES.filter(([code]) => code === '' || usable.has(code));
    language.replaceChildren(...items.map(([value, label]) => h('option', { value }, label)));
    if (items.some(([v]) => v === previous)) language.value = previous;
  }
  mode.addEventListener('change', showMode);
  showMode();

  function setRunning(controller: AbortController | null): void {
    running = controller;
    const busy = controller !== null;
    output.closest('.pane')?.classList.toggle('busy', busy);
    progress.hidden = !busy;
    improveButton.disabled = busy;
    cancelButton.hidden = !busy;
  }

  async function improve(): Promise<void> {
    if (running) return;
    const text = input.value;
    if (text.trim() === '') return notice.show('Type or paste a text first.', 'error');
    const rephrase = mode.value === 'rephrase';
    const body: Record<string, unknown> = { text: [text] };
    if (language.value) body.target_lang = language.value;
    if (rephrase && style.value) {
      const [name, value] = style.value.split('=') as [string, string];
      body[name] = value;
    }
    if (new TextEncoder().encode(JSON.stringify(body)).length > LIMIT_BYTES) return notice.show('The text is over the 10 KiB limit of text improvement.', 'error');
    const controller = new AbortController();
    setRunning(controller);
    notice.clear();
    try {
      const res = await call<{ improvements: { text: string; detected_source_language: string }[] }>('POST', `/v2/write/${mode.value}`, { body, signal: controller.signal });
      output.value = res.improvements[0]!.text;
      improvedFrom = text;
      const detected = languageName(res.improvements[0]!.detected_source_language);
      if (output.value !== text) notice.show(`${rephrase ? 'Rephrased' : 'Corrected'} (${detected} detected).`, 'ok');
      else notice.show(rephrase ? `The language model returned the text unchanged (${detected} detected).` : `No spelling or grammar mistakes found (${detected} detected).`, 'ok');
    } catch (err) {
      improvedFrom = null;
      output.value = '';
      if (err instanceof Cancelled || controller.signal.aborted) notice.show('Cancelled: nothing was improved.', 'info');
      else {
        const what = rephrase ? 'Rephrasing' : 'Correcting';
        notice.show(`${what} failed: ${err instanceof ApiError ? err.message : String(err)}`, 'error');
      }
    } finally {
      setRunning(null);
    }
  }
  const current = () => improvedFrom !== null && improvedFrom === input.value && output.value !== '';
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void improve();
    }
  });

  return h('section', { class: 'view', 'aria-labelledby': 'write-title' },
    h('h2', { id: 'write-title' }, 'Improve text'),
    h('div', { class: 'toolbar' }, field('Improvement', mode), field('Language', language), styleField, improveButton, cancelButton),
    noModel,
    notice.el,
    h('div', { class: 'panes' },
      h('div', { class: 'pane' }, input, h('div', { class: 'row' }, h('span', { class: 'hint' }, 'Ctrl/⌘+Enter improves'))),
      h('div', { class: 'pane' }, output, h('div', { class: 'row' }, progress,
        h('button', { type: 'button', onclick: () => {
          if (!current()) return notice.show('Improve the text as it is now first.', 'info');
          input.value = output.value;
          improvedFrom = input.value;
        } }, 'Use this text'),
        h('button', { type: 'button', onclick: async () => {
          if (!current()) return notice.show('The improvement of this text is not ready yet.', 'info');
          notice.show((await copyText(output.value)) ? 'Improved text copied.' : 'Copying is not allowed here; select the text instead.', 'ok');
        } }, 'Copy')))));
}

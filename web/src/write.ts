// Write: improve text in its own language, correct (spelling, offline with Hunspell) or rephrase (the language-model
// engine, in a writing style or tone), through /v2/write/*. The result can be copied or taken back into the editor.
import { ApiError, call } from './api.js';
import { Notice, copyText, field, h } from './dom.js';

/** The languages /v2/write takes (src/write/write-request.ts), by name. */
const LANGUAGES: [string, string][] = [
  ['', 'Same as the text'], ['de', 'German'], ['en-gb', 'English (British)'], ['en-us', 'English (American)'], ['es', 'Spanish'],
  ['fr', 'French'], ['it', 'Italian'], ['ja', 'Japanese'], ['ko', 'Korean'], ['pt-br', 'Portuguese (Brazilian)'],
  ['pt-pt', 'Portuguese (European)'], ['zh', 'Chinese (simplified)'],
];
const STYLES: [string, string][] = [
  ['', 'No particular style or tone'],
  ['writing_style=simple', 'Style: simple'], ['writing_style=business', 'Style: business'], ['writing_style=academic', 'Style: academic'],
  ['writing_style=casual', 'Style: casual'], ['tone=friendly', 'Tone: friendly'], ['tone=confident', 'Tone: confident'],
  ['tone=diplomatic', 'Tone: diplomatic'], ['tone=enthusiastic', 'Tone: enthusiastic'],
];
/** The reference limits text-improvement request bodies to 10 KiB. */
const LIMIT_BYTES = 10 * 1024;

/** A language code as its English name ("en" → English), the code itself where the browser has no name for it. */
function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code.toUpperCase();
  } catch {
    return code.toUpperCase();
  }
}

const select = (id: string, items: [string, string][]) => h('select', { id }, ...items.map(([value, label]) => h('option', { value }, label)));

export async function writeView(): Promise<HTMLElement> {
  const notice = new Notice();
  const mode = select('write-mode', [['correct', 'Correct spelling and grammar'], ['rephrase', 'Rephrase']]);
  const language = select('write-lang', LANGUAGES);
  const style = select('write-style', STYLES);
  const styleField = field('Style or tone', style);
  const input = h('textarea', { id: 'write-text', dir: 'auto', rows: 10, 'aria-label': 'Text to improve', placeholder: 'Type or paste text to improve' });
  const output = h('textarea', { id: 'write-result', dir: 'auto', rows: 10, readonly: true, 'aria-label': 'Improved text' });
  const progress = h('span', { class: 'busy-label', role: 'status', hidden: true }, 'Improving…');
  let improvedFrom: string | null = null;
  const showMode = () => (styleField.hidden = mode.value !== 'rephrase');
  mode.addEventListener('change', showMode);
  showMode();

  async function improve(): Promise<void> {
    const text = input.value;
    if (text.trim() === '') return notice.show('Type or paste a text first.', 'error');
    const body: Record<string, unknown> = { text: [text] };
    if (language.value) body.target_lang = language.value;
    if (mode.value === 'rephrase' && style.value) {
      const [name, value] = style.value.split('=') as [string, string];
      body[name] = value;
    }
    if (new TextEncoder().encode(JSON.stringify(body)).length > LIMIT_BYTES) return notice.show('The text is over the 10 KiB limit of text improvement.', 'error');
    output.closest('.pane')?.classList.add('busy');
    progress.hidden = false;
    try {
      const res = await call<{ improvements: { text: string; detected_source_language: string }[] }>('POST', `/v2/write/${mode.value}`, { body });
      output.value = res.improvements[0]!.text;
      improvedFrom = text;
      notice.show(output.value === text ? 'Nothing to improve.' : `Improved (${languageName(res.improvements[0]!.detected_source_language)} detected).`, 'ok');
    } catch (err) {
      improvedFrom = null;
      output.value = '';
      notice.show(err instanceof ApiError ? err.message : String(err), 'error');
    } finally {
      output.closest('.pane')?.classList.remove('busy');
      progress.hidden = true;
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
    h('div', { class: 'toolbar' }, field('Improvement', mode), field('Language', language), styleField,
      h('button', { type: 'button', class: 'primary', id: 'improve', onclick: () => void improve() }, 'Improve')),
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

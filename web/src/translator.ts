// The translator: language selectors from /v2/languages, detection, swap, formality, glossary and style rule,
// translate as you type (debounced) or with Ctrl/Cmd+Enter, the 128 KiB request limit, copy and clear.
import { ApiError, allows, baseLanguage as base, call, glossariesFor, glossaryOptions, loadGlossaries, loadLanguages, type Language, type Session } from './api.js';
import { Notice, copyText, field, formatBytes, h } from './dom.js';

/** The API's request-body limit for /v2/translate. */
const LIMIT_BYTES = 128 * 1024;
const DEBOUNCE_MS = 700;
const RTL = new Set(['ar', 'he', 'fa', 'ur', 'yi', 'ps', 'ckb']);
const FORMALITY = [
  ['default', 'Default formality'],
  ['prefer_more', 'More formal'],
  ['prefer_less', 'Less formal'],
] as const;

export const isRtl = (code: string) => RTL.has(base(code));

/** How the text is read: markup is kept and only the text between tags translated (the API's tag_handling). */
const FORMATS = [
  ['auto', 'Text or HTML (detected)'],
  ['text', 'Plain text'],
  ['html', 'HTML'],
  ['xml', 'XML'],
] as const;
/** An opening or closing tag: typed-in HTML is translated as HTML unless plain text is chosen. */
const TAG = /<\/?[A-Za-z][\w:-]*(\s[^<>]*)?\/?>/;

/** The tag_handling a text is sent with in the chosen format, or undefined for plain text. */
export function tagHandlingFor(format: string, text: string): 'html' | 'xml' | undefined {
  if (format === 'html' || format === 'xml') return format;
  return format === 'auto' && TAG.test(text) ? 'html' : undefined;
}

function options(select: HTMLSelectElement, items: [string, string][], keep = true): void {
  const previous = select.value;
  select.replaceChildren(...items.map(([value, label]) => h('option', { value }, label)));
  if (keep && items.some(([v]) => v === previous)) select.value = previous;
}

export async function translatorView(session: Session): Promise<HTMLElement> {
  const notice = new Notice();
  const source = h('select', { id: 'source-lang' });
  const target = h('select', { id: 'target-lang' });
  const formality = h('select', { id: 'formality' });
  const glossary = h('select', { id: 'glossary' });
  const style = h('select', { id: 'style-rule' });
  const format = h('select', { id: 'text-format' });
  const detected = h('span', { class: 'hint', id: 'detected', 'aria-live': 'polite' });
  const input = h('textarea', { id: 'source-text', dir: 'auto', rows: 10, placeholder: 'Type or paste text to translate', 'aria-label': 'Text to translate' });
  const output = h('textarea', { id: 'target-text', rows: 10, readonly: true, 'aria-label': 'Translation', 'aria-live': 'polite' });
  const count = h('span', { class: 'hint', id: 'char-count' });
  const progress = h('span', { class: 'busy-label', id: 'translating', role: 'status', hidden: true }, 'Translating…');
  const formalityField = field('Formality', formality);
  options(formality, FORMALITY.map(([v, l]) => [v, l]));
  options(format, FORMATS.map(([v, l]) => [v, l]));

  const { sources, targets } = await loadLanguages();
  const targetInfo = new Map<string, Language>(targets.map((t) => [t.language, t]));
  options(source, [['', 'Detect language'], ...sources.map((l): [string, string] => [l.language, l.name])]);
  options(target, targets.map((l): [string, string] => [l.language, l.name]));
  target.value = targets.find((t) => t.language === 'ES')?.language ?? targets[0]?.language ?? '';

  const glossaries = await loadGlossaries(session);
  let styles: { style_id: string; name: string; language: string }[] = [];
  if (allows(session, 'style_rules')) {
    styles = (await call<{ style_rules: typeof styles }>('GET', '/v3/style_rules?page_size=25').catch(() => ({ style_rules: [] }))).style_rules;
  }

  /** Glossaries with a dictionary for the chosen pair (a glossary needs an explicit source language), style rules of the target. */
  function refreshChoices(): void {
    const t = target.value;
    formalityField.hidden = !targetInfo.get(t)?.supports_formality;
    glossaryOptions(glossary, glossariesFor(glossaries, source.value, t), source.value);
    const rules = styles.filter((r) => base(r.language) === base(t));
    options(style, [['', 'No style rule'], ...rules.map((r): [string, string] => [r.style_id, r.name])]);
    style.disabled = rules.length === 0;
    output.dir = isRtl(t) ? 'rtl' : 'ltr';
  }

  const utf8 = (s: string) => new TextEncoder().encode(s).length;
  function showCount(): void {
    const n = [...input.value].length;
    const size = utf8(input.value);
    count.textContent = `${n.toLocaleString()} characters · ${formatBytes(size)} of ${formatBytes(LIMIT_BYTES)}`;
    count.classList.toggle('over', size > LIMIT_BYTES);
  }

  const autoOption = () => source.querySelector<HTMLOptionElement>('option[value=""]')!;
  /** After automatic detection the source picker names the language found, as well as the hint beside the text. */
  function showDetected(name: string): void {
    detected.textContent = name ? `· Detected: ${name}` : '';
    autoOption().textContent = name ? `Detect language (${name})` : 'Detect language';
  }
  /** The source text the translation on screen belongs to (null: none, or it is out of date). */
  let translatedFrom: string | null = null;
  /** The language the server detected for that text ('' when the source was chosen). */
  let detectedLanguage = '';
  const current = () => translatedFrom !== null && translatedFrom === input.value && !output.hasAttribute('aria-busy');
  function setBusy(busy: boolean): void {
    if (busy) output.setAttribute('aria-busy', 'true');
    else output.removeAttribute('aria-busy');
    output.closest('.pane')?.classList.toggle('busy', busy);
    progress.hidden = !busy;
  }

  let sequence = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  async function translate(): Promise<void> {
    clearTimeout(timer);
    const text = input.value;
    const mine = ++sequence;
    if (text.trim() === '') {
      output.value = '';
      translatedFrom = null;
      setBusy(false);
      showDetected('');
      notice.clear();
      return;
    }
    const body: Record<string, unknown> = { text: [text], target_lang: target.value };
    if (source.value) body.source_lang = source.value;
    if (!formalityField.hidden && formality.value !== 'default') body.formality = formality.value;
    if (glossary.value) body.glossary_id = glossary.value;
    if (style.value) body.style_id = style.value;
    const tagHandling = tagHandlingFor(format.value, text);
    if (tagHandling) body.tag_handling = tagHandling;
    // The limit is on the request body: the text as JSON (escapes included) and the other fields.
    if (utf8(JSON.stringify(body)) > LIMIT_BYTES) {
      output.value = '';
      translatedFrom = null;
      setBusy(false);
      notice.show('The text is over the 128 KiB limit of one request: shorten it or translate it as a document.', 'error');
      return;
    }
    setBusy(true);
    try {
      const res = await call<{ translations: { text: string; detected_source_language: string }[] }>('POST', '/v2/translate', { body });
      if (mine !== sequence) return;
      const first = res.translations[0]!;
      output.value = first.text;
      translatedFrom = text;
      const from = sources.find((l) => l.language === first.detected_source_language);
      detectedLanguage = source.value ? '' : first.detected_source_language;
      showDetected(source.value ? '' : (from?.name ?? first.detected_source_language));
      notice.clear();
    } catch (err) {
      if (mine !== sequence) return;
      output.value = '';
      translatedFrom = null;
      // the language detected for an earlier text says nothing about this one
      detectedLanguage = '';
      showDetected('');
      notice.show(err instanceof ApiError ? err.message : String(err), 'error');
    } finally {
      if (mine === sequence) setBusy(false);
    }
  }
  const soon = () => {
    // The translation on screen no longer matches the text: shown as in progress until the new one arrives.
    if (input.value.trim() !== '') setBusy(true);
    clearTimeout(timer);
    timer = setTimeout(() => void translate(), DEBOUNCE_MS);
  };

  input.addEventListener('input', () => {
    showCount();
    soon();
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void translate();
    }
  });
  for (const s of [source, target, formality, glossary, style, format]) {
    s.addEventListener('change', () => {
      if (s === source || s === target) refreshChoices();
      void translate();
    });
  }

  const swap = h('button', {
    type: 'button',
    class: 'icon',
    id: 'swap',
    'aria-label': 'Swap languages',
    title: 'Swap languages',
    onclick: () => {
      // Targets may be regional (EN-US); the source is the base language.
      const from = source.value || detectedLanguage;
      const to = base(target.value).toUpperCase();
      if (!from || !sources.some((l) => l.language === to)) return notice.show('These languages cannot be swapped.', 'error');
      // Only a finished translation of the text as it is now moves over; otherwise the typed text stays.
      if (current() && output.value) input.value = output.value;
      source.value = to;
      target.value = targets.find((t) => t.language === from)?.language ?? targets.find((t) => base(t.language) === base(from))?.language ?? target.value;
      showDetected('');
      refreshChoices();
      showCount();
      void translate();
    },
  }, '⇄');

  const copy = h('button', {
    type: 'button',
    onclick: async () => {
      if (!current() || !output.value) return notice.show('The translation of this text is not ready yet.', 'info');
      notice.show((await copyText(output.value)) ? 'Translation copied.' : 'Copying is not allowed here; select the text instead.', 'ok');
    },
  }, 'Copy');
  const clear = h('button', {
    type: 'button',
    onclick: () => {
      clearTimeout(timer);
      sequence++;
      input.value = '';
      output.value = '';
      translatedFrom = null;
      setBusy(false);
      showDetected('');
      notice.clear();
      showCount();
      input.focus();
    },
  }, 'Clear');

  refreshChoices();
  showCount();
  return h('section', { class: 'view', 'aria-labelledby': 'translator-title' },
    h('h2', { id: 'translator-title' }, 'Translate text'),
    h('div', { class: 'toolbar' },
      field('From', source), swap, field('To', target), formalityField, field('Glossary', glossary), field('Style rule', style), field('Format', format)),
    notice.el,
    h('div', { class: 'panes' },
      h('div', { class: 'pane' }, input, h('div', { class: 'row' }, h('span', {}, count, ' ', detected), clear)),
      h('div', { class: 'pane' }, output, h('div', { class: 'row' }, h('span', { class: 'hint' }, progress, ' Ctrl/⌘+Enter translates now'), copy))));
}

// A tiny element builder and the page's shared message line; the page is plain DOM, no framework.
type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

/** h('button', { type: 'button', onclick: fn, 'aria-label': 'Copy' }, 'Copy'): attributes, `on*` listeners, children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'value' && 'value' in el) (el as HTMLInputElement).value = String(value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, ...children);
  return el;
}

export function append(el: Element, ...children: Child[]): void {
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
}

/** An SVG element (charts). */
export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: (Node | string)[]): SVGElement {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

/** A labelled control: <label>Text <control></label> gives the control its accessible name. */
export function field(label: string, control: HTMLElement, extra?: Child): HTMLLabelElement {
  return h('label', { class: 'field' }, h('span', {}, label), control, extra);
}

/** A status line (role=status, or alert for errors) that screen readers announce. */
export class Notice {
  readonly el = h('p', { class: 'notice', role: 'status', 'aria-live': 'polite', hidden: true });

  show(message: string, kind: 'info' | 'error' | 'ok' = 'info'): void {
    this.el.textContent = message;
    this.el.className = `notice ${kind}`;
    this.el.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    this.el.hidden = message === '';
  }

  clear(): void {
    this.show('');
  }
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round(n / (1024 * 1024))} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}

/** Saves bytes or text as a download without the URL ever holding anything secret. */
export function saveFile(name: string, data: Blob): void {
  const url = URL.createObjectURL(data);
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** A language code as its English name ("en" → English), the code itself where the browser has no name for it. */
export function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code.toUpperCase();
  } catch {
    return code.toUpperCase();
  }
}

// Protects spans an engine must not translate ({name}, %s, <i>…) by swapping them for opaque tokens that engines copy
// through; tokens an engine drops are re-attached at the end, so no placeholder is ever lost.

/** Tokens engines treat as unknown words and copy unchanged (checked against Apertium). */
const TOKEN = /⟦(\d+)⟧/g;

export interface Protected {
  text: string;
  restore(translated: string): string;
}

export const JSON_PLACEHOLDERS = [
  /\{\{[^{}]*\}\}/g, // {{count}} (Handlebars, i18next)
  /\{[^{}\s]*\}/g, // {name}, {0} (ICU arguments without nested text)
  /%(?:\d+\$)?[-+ #0]*\d*(?:\.\d+)?[sdifuxXeEgGcpo@]/g, // printf: %s, %1$d, %.2f
  /%\([A-Za-z_][A-Za-z0-9_]*\)[sdif]/g, // Python: %(name)s
  /\$\{[^}]*\}/g, // ${var}
  /<[^<>]+>/g, // inline tags
];

export const SRT_PLACEHOLDERS = [/<[^<>]+>/g, /\{\\[^}]*\}/g];

export function protect(text: string, patterns: readonly RegExp[]): Protected {
  const spans: { start: number; end: number }[] = [];
  for (const pattern of patterns) {
    for (const m of text.matchAll(new RegExp(pattern.source, 'g'))) {
      const start = m.index!;
      const end = start + m[0].length;
      if (m[0].length > 0 && !spans.some((s) => start < s.end && end > s.start)) spans.push({ start, end });
    }
  }
  // A text that already contains our token shape is left alone rather than risk confusing the two.
  if (spans.length === 0 || TOKEN.test(text)) {
    TOKEN.lastIndex = 0;
    return { text, restore: (t) => t };
  }
  spans.sort((a, b) => a.start - b.start);
  const originals: string[] = [];
  let out = '';
  let pos = 0;
  for (const s of spans) {
    out += text.slice(pos, s.start) + `⟦${originals.length}⟧`;
    originals.push(text.slice(s.start, s.end));
    pos = s.end;
  }
  out += text.slice(pos);
  return {
    text: out,
    restore(translated: string): string {
      const used = new Set<number>();
      let restored = translated.replace(TOKEN, (whole, n: string) => {
        const i = Number(n);
        if (i >= originals.length || used.has(i)) return '';
        used.add(i);
        return originals[i]!;
      });
      const missing = originals.filter((_, i) => !used.has(i));
      if (missing.length > 0) restored = `${restored}${restored && !/\s$/.test(restored) ? ' ' : ''}${missing.join(' ')}`;
      return restored;
    },
  };
}

/** True when the text has something to translate besides placeholders, digits and punctuation. */
export function hasWords(text: string): boolean {
  return /\p{L}/u.test(text.replace(TOKEN, ''));
}

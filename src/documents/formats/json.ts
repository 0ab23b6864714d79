// JSON: only string values are translated; keys, numbers (big ones too), formatting and key order stay as written,
// because the translated strings are spliced into the original text at the parser's offsets (jsonc-parser).
import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { countCodePoints, decodeText, DocumentFormatError, type DocumentFormat, type ExtractedDocument } from './format.js';
import { hasWords, JSON_PLACEHOLDERS, protect, type Protected } from './placeholders.js';
import { icuPieces, joinPieces } from '../../markup/icu-message.js';

interface StringValue {
  offset: number;
  length: number;
  value: string;
  /** What the engine translates: the whole string, or the branch texts of an ICU message. */
  parts: Protected[];
  /** The string rebuilt from its parts' translations. */
  join(translated: (string | undefined)[]): string;
}

/** ICU arguments inside a branch ({name}, {n, number}) and the plural's `#` stay as written. */
const ICU_PLACEHOLDERS = [/\{[^{}]*\}/g, ...JSON_PLACEHOLDERS];

/** A string value split into what the engine translates; an ICU message gives its branch texts only. */
function stringValue(n: Node): StringValue {
  const value = n.value as string;
  const base = { offset: n.offset, length: n.length, value };
  const pieces = icuPieces(value);
  if (!pieces) {
    const whole = protect(value, JSON_PLACEHOLDERS);
    return { ...base, parts: hasWords(whole.text) ? [whole] : [], join: (t) => t[0] ?? value };
  }
  const parts = pieces.map((p) => ({ p, text: protect(value.slice(p.start, p.end), p.plural ? [/#/g, ...ICU_PLACEHOLDERS] : ICU_PLACEHOLDERS) }));
  const prose = parts.filter((x) => hasWords(x.text.text));
  return {
    ...base,
    parts: prose.map((x) => x.text),
    join: (t) => joinPieces(value, prose.map((x) => x.p), t),
  };
}

/** Strings that are data rather than prose: URLs, e-mail addresses, paths, colour codes. */
function looksLikeData(s: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\/\S*$/i.test(s) || /^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i.test(s) || /^[./~]?[\w.-]*\/[\w./-]*$/.test(s);
}

function collect(node: Node, out: Node[]): void {
  // Iterative walk: a deeply nested file must not exhaust the stack here.
  const stack: Node[] = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.type === 'string') {
      const parent = n.parent;
      // a property's name is its first child; only values are translated
      if (!parent || parent.type !== 'property' || parent.children?.[1] === n) out.push(n);
      continue;
    }
    if (n.children) for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
}

/**
 * The text with each value replaced, in one pass over values in document order (jsonc-parser's applyEdits copies
 * the whole text once per edit: a 1 MB file of short strings took minutes).
 */
function replaceValues(text: string, values: StringValue[], content: (v: StringValue, i: number) => string): string {
  const parts: string[] = [];
  let at = 0;
  values.forEach((v, i) => {
    parts.push(text.slice(at, v.offset), content(v, i));
    at = v.offset + v.length;
  });
  parts.push(text.slice(at));
  return parts.join('');
}

export const jsonFormat: DocumentFormat = {
  id: 'json',
  extensions: ['json'],
  contentType: 'application/json; charset=utf-8',
  maxBytes: 10 * 1024 * 1024,
  minimumBilledCharacters: 0,
  extract(input: Buffer): ExtractedDocument {
    const { text, encode } = decodeText(input, 'json');
    const errors: ParseError[] = [];
    let root: Node | undefined;
    try {
      root = parseTree(text, errors, { allowTrailingComma: false, disallowComments: true });
    } catch (err) {
      if (err instanceof RangeError) throw new DocumentFormatError('The json file is nested too deeply.');
      throw err;
    }
    if (errors.length > 0 || !root) {
      const first = errors[0];
      const where = first ? ` (${printParseErrorCode(first.error)} at offset ${first.offset})` : '';
      throw new DocumentFormatError(`The json file could not be parsed${where}.`);
    }
    const nodes: Node[] = [];
    collect(root, nodes);
    const values: StringValue[] = nodes
      .filter((n) => typeof n.value === 'string' && hasWords(n.value) && !looksLikeData(n.value))
      .map(stringValue)
      .filter((v) => v.parts.length > 0);
    // segment index of each value's first part
    const first: number[] = [];
    values.reduce((n, v) => (first.push(n), n + v.parts.length), 0);
    return {
      segments: values.flatMap((v) => v.parts.map((p) => ({ text: p.text, kind: 'text' as const }))),
      characters: values.reduce((n, v) => n + countCodePoints(v.value), 0),
      rebuild(translations) {
        const content = (v: StringValue, i: number) =>
          JSON.stringify(v.join(v.parts.map((p, k) => (translations[first[i]! + k] === undefined ? undefined : p.restore(translations[first[i]! + k]!)))));
        return encode(replaceValues(text, values, content));
      },
    };
  },
};

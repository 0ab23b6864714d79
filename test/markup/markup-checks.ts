// Independent checks of translated markup (used by the corpus and fuzz tests and the markup benchmark): parse both
// documents with the reference parsers and compare their tag structure, verbatim parts and text.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SaxesParser } from 'saxes';
import { parse, parseFragment, type DefaultTreeAdapterTypes as T } from 'parse5';

export type Format = 'xml' | 'html';

export interface FixtureCase {
  name: string;
  format: Format;
  text: string;
  options: {
    ignore_tags?: string[];
    splitting_tags?: string[];
    non_splitting_tags?: string[];
    outline_detection?: boolean;
  };
  keep: string[];
  expectLang?: string;
  lenient?: boolean;
}

export function fixtureDir(): string {
  // Compiled to dist/test/markup; the fixtures stay in the source tree.
  return join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'markup');
}

export function loadFixtures(): FixtureCase[] {
  const dir = fixtureDir();
  const meta = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')) as Record<string, Record<string, unknown>>;
  return Object.entries(meta).map(([name, m]) => {
    const { keep, expectLang, lenient, ...options } = m as { keep?: string[]; expectLang?: string; lenient?: boolean };
    const c: FixtureCase = {
      name,
      format: name.endsWith('.xml') ? 'xml' : 'html',
      text: readFileSync(join(dir, name), 'utf8'),
      options: options as FixtureCase['options'],
      keep: keep ?? [],
    };
    if (expectLang) c.expectLang = expectLang;
    if (lenient) c.lenient = true;
    return c;
  });
}

const TRANSLATED_ATTRS = new Set(['title', 'alt', 'placeholder', 'aria-label', 'lang']);

/** XML: the saxes error of a text (a fragment may have several roots), or undefined when well-formed. */
export function xmlError(text: string): string | undefined {
  const isDocument = /^\s*<\?xml[\s?]|<!DOCTYPE/u.test(text);
  const parser = new SaxesParser({ xmlns: true });
  let error: string | undefined;
  parser.on('error', (e) => {
    error ??= e.message;
  });
  try {
    parser.write(isDocument ? text : `<r>${text}</r>`).close();
  } catch (e) {
    error ??= (e as Error).message;
  }
  return error;
}

/** Every element as "ancestor/…/name[attrs]" (attributes that are translated or updated left out), sorted. */
export function tagPaths(format: Format, text: string): string[] {
  const out: string[] = [];
  if (format === 'xml') {
    const parser = new SaxesParser({ xmlns: false });
    const stack: string[] = [];
    parser.on('opentag', (t) => {
      const attrs = Object.entries(t.attributes as Record<string, string>)
        .map(([k, v]) => `${k}=${v}`)
        .sort()
        .join(' ');
      stack.push(t.name);
      out.push(`${stack.join('/')}[${attrs}]`);
    });
    parser.on('closetag', () => void stack.pop());
    const isDocument = /^\s*<\?xml[\s?]|<!DOCTYPE/u.test(text);
    parser.write(isDocument ? text : `<r>${text}</r>`).close();
    return out.sort();
  }
  const walk = (nodes: T.ChildNode[], path: string[]) => {
    for (const n of nodes) {
      if (!('tagName' in n)) continue;
      const attrs = n.attrs
        .filter((a) => !TRANSLATED_ATTRS.has(a.name))
        .map((a) => `${a.name}=${a.value}`)
        .sort()
        .join(' ');
      const p = [...path, n.tagName];
      out.push(`${p.join('/')}[${attrs}]`);
      walk(n.childNodes, p);
      if (n.tagName === 'template') walk((n as T.Template).content.childNodes, p);
    }
  };
  walk(parseHtmlTree(text).childNodes as T.ChildNode[], []);
  return out.sort();
}

function parseHtmlTree(text: string): T.Document | T.DocumentFragment {
  return /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype|html[\s>])/iu.test(text) ? parse(text) : parseFragment(text);
}

/** HTML parse errors (parse5's list): translated output must not have more than its source. */
export function htmlErrorCount(text: string): number {
  let n = 0;
  const opts = { onParseError: () => void n++ };
  if (/^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype|html[\s>])/iu.test(text)) parse(text, opts);
  else parseFragment(text, opts);
  return n;
}

/** Parts that must come back byte-identical whatever the options: comments, CDATA, PIs, script and style blocks. */
export function verbatimParts(text: string): string[] {
  const re = /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>|<script\b[\s\S]*?<\/script>|<style\b[\s\S]*?<\/style>|<!DOCTYPE[^>]*>/giu;
  return [...text.matchAll(re)].map((m) => m[0]);
}

/** Text content outside tags (entities decoded roughly), blanks collapsed. */
export function textOf(text: string): string {
  return text
    .replace(/<!--[\s\S]*?-->|<script\b[\s\S]*?<\/script>|<style\b[\s\S]*?<\/style>|<[^>]*>/giu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** Words (letters only, lower case) of a text. */
export function words(text: string): string[] {
  return (text.toLowerCase().match(/\p{L}+/gu) ?? []);
}

/** Runs every check on one translated fixture and returns the failures (empty when all pass). */
export function checkTranslated(c: FixtureCase, output: string): string[] {
  const problems: string[] = [];
  if (c.format === 'xml') {
    const err = xmlError(output);
    if (err) problems.push(`output not well-formed: ${err}`);
  } else if (htmlErrorCount(output) > htmlErrorCount(c.text)) problems.push('output has more HTML parse errors than the source');
  if (problems.length === 0) {
    const a = tagPaths(c.format, c.text).join('\n');
    const b = tagPaths(c.format, output).join('\n');
    if (a !== b) problems.push(`tag structure differs:\n${a}\n---\n${b}`);
  }
  for (const part of [...verbatimParts(c.text), ...c.keep]) if (!output.includes(part)) problems.push(`verbatim part changed: ${part}`);
  const strip = (t: string) => c.keep.reduce((acc, k) => acc.split(k).join(' '), t);
  const src = words(textOf(strip(c.text)));
  const out = new Set(words(textOf(strip(output))));
  const kept = src.filter((w) => out.has(w)).length;
  if (textOf(output) === textOf(c.text) || kept / Math.max(1, src.length) > 0.8) problems.push('text not translated');
  if (c.expectLang && !output.includes(`lang="${c.expectLang}"`)) problems.push(`lang not set to ${c.expectLang}`);
  return problems;
}

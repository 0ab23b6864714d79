// TMX 1.4b reading (streamed with saxes, so memory use does not grow with the file) and writing.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';

export interface TmxUnit {
  source: string;
  /** Lower-case target language → segment text. */
  targets: Map<string, string>;
}

export interface TmxHeaderInfo {
  sourceLang: string;
}

export class TmxError extends Error {}

/**
 * Streams the units of a TMX file to `onUnit` (awaited, so the caller can batch database writes). Inline markup
 * (bpt/ept/ph/it/ut) is native code and dropped; hi/sub text is kept.
 */
export async function readTmx(
  /** A file path, or the file's bytes */
  source: string | Readable,
  onHeader: (h: TmxHeaderInfo) => void,
  onUnit: (u: TmxUnit) => Promise<void> | void,
  onSkip: () => void,
): Promise<void> {
  const parser = new SaxesParser({ xmlns: false });
  let headerLang: string | undefined;
  let sawHeader = false;
  let tuLang: string | undefined;
  let tuvs: { lang: string; text: string }[] = [];
  let tuvLang: string | undefined;
  let seg: string | null = null;
  let skipDepth = 0;
  const pending: TmxUnit[] = [];
  let error: Error | undefined;
  parser.on('error', (e) => {
    error ??= new TmxError(`The TMX file is not well-formed XML: ${e.message}`);
  });
  parser.on('opentag', (tag) => {
    const name = tag.name;
    const attr = (n: string) => {
      const v = tag.attributes[n];
      return typeof v === 'string' ? v : undefined;
    };
    if (name === 'header') {
      sawHeader = true;
      headerLang = attr('srclang');
      if (!headerLang) error ??= new TmxError('The TMX header has no srclang attribute.');
      else onHeader({ sourceLang: headerLang.toLowerCase() });
    } else if (name === 'tu') {
      tuLang = attr('srclang');
      tuvs = [];
    } else if (name === 'tuv') {
      tuvLang = (attr('xml:lang') ?? attr('lang'))?.toLowerCase();
    } else if (name === 'seg') {
      seg = '';
    } else if (seg !== null && ['bpt', 'ept', 'ph', 'it', 'ut'].includes(name)) {
      skipDepth++;
    }
  });
  parser.on('text', (t) => {
    if (seg !== null && skipDepth === 0) seg += t;
  });
  parser.on('cdata', (t) => {
    if (seg !== null && skipDepth === 0) seg += t;
  });
  parser.on('closetag', (tag) => {
    const name = tag.name;
    if (seg !== null && ['bpt', 'ept', 'ph', 'it', 'ut'].includes(name)) skipDepth--;
    else if (name === 'seg') {
      if (tuvLang) tuvs.push({ lang: tuvLang, text: (seg ?? '').replace(/\s+/g, ' ').trim() });
      seg = null;
    } else if (name === 'tu') {
      const src = (tuLang && tuLang !== '*all*' ? tuLang : headerLang)?.toLowerCase();
      const source = tuvs.find((t) => t.lang === src || t.lang.split('-')[0] === src?.split('-')[0]);
      const targets = new Map(tuvs.filter((t) => t !== source && t.text !== '').map((t) => [t.lang, t.text]));
      if (!source || source.text === '' || targets.size === 0) onSkip();
      else pending.push({ source: source.text, targets });
    }
  });
  const stream = typeof source === 'string' ? createReadStream(source, { highWaterMark: 256 * 1024 }) : source;
  stream.setEncoding('utf8');
  for await (const chunk of stream) {
    parser.write(chunk as string);
    if (error) {
      stream.destroy();
      throw error;
    }
    while (pending.length > 0) await onUnit(pending.shift()!);
  }
  parser.close();
  if (error) throw error;
  if (!sawHeader) throw new TmxError('The file is not a TMX document: no <header> element.');
  while (pending.length > 0) await onUnit(pending.shift()!);
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function tmxHeader(sourceLang: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4">\n<header creationtool="Tolk" creationtoolversion="1" datatype="plaintext" segtype="sentence" adminlang="en" srclang="${esc(sourceLang)}" o-tmf="tolk"/>\n<body>\n`;
}

export function tmxUnit(sourceLang: string, source: string, targetLang: string, target: string): string {
  return `<tu><tuv xml:lang="${esc(sourceLang)}"><seg>${esc(source)}</seg></tuv><tuv xml:lang="${esc(targetLang)}"><seg>${esc(target)}</seg></tuv></tu>\n`;
}

export const TMX_FOOTER = '</body>\n</tmx>\n';

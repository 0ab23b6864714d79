// FrameMaker MIF documents: each <Para> of the text flows (and tables) is one tagged unit, its Font changes as spans
// and its Char/Variable/XRef/Marker/anchor statements as empty tags; everything outside those Paras is kept byte for byte.
import { translateTagged, type TaggedText, type TagMark } from '../../../markup/index.js';
import { countCodePoints, DocumentFormatError, type DocumentFormat, type ExtractedDocument } from '../format.js';
import { arrangeRuns, keepBlanksAroundAtoms, restoreRuns, withoutRuns } from '../run-arrangement.js';
import { decodeMifString, encodeMifString, parseMif, type MifStatement } from './mif-syntax.js';

/** Containers whose Paras are document text (not catalogs, variable or cross-reference formats, master data). */
const TEXT_CONTAINERS = new Set(['TextFlow', 'Tbls']);
/** ParaLine statements that describe the line itself, not its content. */
const LINE_META = new Set(['TextRectID']);
/** Longest String written back: FrameMaker splits text into several Strings too. */
const MAX_STRING = 200;

/** A statement's data as written (`<PageType ReferencePage>` → "ReferencePage"). */
function data(text: string, st: MifStatement): string {
  return text.slice(st.dataStart, st.end - 1).trim();
}

/** Direct and nested children named `name` (iterative: the nesting is bounded by the parser, not the stack). */
function descendants(st: MifStatement, name: string): MifStatement[] {
  const out: MifStatement[] = [];
  const stack = [...st.children];
  while (stack.length > 0) {
    const c = stack.pop()!;
    if (c.name === name) out.push(c);
    stack.push(...c.children);
  }
  return out;
}

/**
 * The text flows on reference pages and the tables anchored in them: FrameMaker's mapping tables for export (HTML,
 * XML, PDF bookmarks) name the real paragraph and character formats there, so they are never translated.
 */
function referenceContent(text: string, top: MifStatement[]): Set<MifStatement> {
  const rects = new Set<string>();
  for (const page of top.filter((st) => st.name === 'Page')) {
    if (!page.children.some((c) => c.name === 'PageType' && data(text, c) === 'ReferencePage')) continue;
    for (const rect of descendants(page, 'TextRect')) for (const id of rect.children.filter((c) => c.name === 'ID')) rects.add(data(text, id));
  }
  const out = new Set<MifStatement>();
  if (rects.size === 0) return out;
  const tables = new Set<string>();
  for (const flow of top.filter((st) => st.name === 'TextFlow')) {
    if (!descendants(flow, 'TextRectID').some((r) => rects.has(data(text, r)))) continue;
    out.add(flow);
    for (const a of descendants(flow, 'ATbl')) tables.add(data(text, a));
  }
  for (const tbls of top.filter((st) => st.name === 'Tbls')) {
    for (const tbl of tbls.children.filter((c) => c.name === 'Tbl')) if (tbl.children.some((c) => c.name === 'TblID' && tables.has(data(text, c)))) out.add(tbl);
  }
  return out;
}

interface ParaPlan {
  para: MifStatement;
  unit: number;
  render(out: TaggedText): string;
}

export const mifFormat: DocumentFormat = {
  id: 'mif',
  extensions: ['mif'],
  contentType: 'application/vnd.mif',
  // MIF is verbose text (every statement spelled out): 30 MB is a long book chapter with inline graphics.
  maxBytes: 30 * 1024 * 1024,
  minimumBilledCharacters: 0,
  extract(input: Buffer): ExtractedDocument {
    const bom = input.length >= 3 && input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf;
    const body = bom ? input.subarray(3) : input;
    const m = /^\s*<MIFFile\s+(\d+(?:\.\d+)?)/u.exec(body.subarray(0, 256).toString('latin1'));
    if (!m) throw new DocumentFormatError('The file is not a MIF file: it must begin with <MIFFile version>.');
    // MIF 8 and later (FrameMaker 8+, Unicode) is UTF-8; older MIF is ASCII with FrameRoman \xNN codes.
    const unicode = parseFloat(m[1]!) >= 8;
    let text: string;
    if (unicode) {
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(body);
      } catch {
        throw new DocumentFormatError('The MIF file declares a Unicode version (8 or later) but is not valid UTF-8.');
      }
    } else text = body.toString('latin1');
    const encode = (s: string) => {
      const out = unicode ? Buffer.from(s, 'utf8') : Buffer.from(s, 'latin1');
      return bom ? Buffer.concat([input.subarray(0, 3), out]) : out;
    };

    const paras: MifStatement[] = [];
    const statements = parseMif(text);
    const reference = referenceContent(text, statements);
    const collect = (list: MifStatement[], inText: boolean) => {
      for (const st of list) {
        if (reference.has(st)) continue;
        if (st.name === 'Para' && inText) paras.push(st);
        else collect(st.children, inText || TEXT_CONTAINERS.has(st.name));
      }
    };
    collect(statements, false);
    const units: TaggedText[] = [];
    const plans = paras.flatMap((p) => planPara(text, p, units, unicode) ?? []);
    const build = (outputs: TaggedText[]) => {
      let out = '';
      let at = 0;
      for (const p of plans) {
        out += text.slice(at, p.para.start) + p.render(outputs[p.unit] ?? units[p.unit]!);
        at = p.para.end;
      }
      return encode(out + text.slice(at));
    };
    return {
      segments: units.map((u) => ({ text: u.text, kind: 'text' as const })),
      characters: units.reduce((n, u) => n + countCodePoints(u.text), 0),
      async rebuild(translations) {
        // Without the markup layer's realignment: font changes are placed proportionally on each translation.
        return build(await translateTagged(units, async () => units.map((u, i) => translations[i] ?? u.text), 'placeholders'));
      },
      async translateWith(translate) {
        return build(await translateTagged(units, translate, 'realign'));
      },
    };
  },
};

/**
 * One Para as a unit: the text of its Strings; Font statements open spans (the text before the first one is the
 * paragraph font's span, pinned first); other ParaLine statements are empty tags, an XRef with its text up to XRefEnd
 * being one. Written back, all content goes into the first content line; later ParaLines keep only their own
 * statements (TextRectID), which FrameMaker reflows on opening.
 */
function planPara(text: string, para: MifStatement, units: TaggedText[], unicode: boolean): ParaPlan | undefined {
  const items = para.children.filter((c) => c.name === 'ParaLine').flatMap((line) => line.children.filter((c) => !LINE_META.has(c.name)));
  if (items.length === 0) return undefined;
  const raws: string[] = [];
  const marks: TagMark[] = [];
  const prefix: string[] = [];
  const pinnedStart = new Set<number>();
  let utext = '';
  let span: number | undefined;
  let lastFont = '';
  const groups: { start: number; end: number }[] = [];
  const openSpan = (raw: string) => {
    if (span !== undefined) marks.push({ id: span, kind: 'close', pos: utext.length });
    span = raws.push(raw) - 1;
    marks.push({ id: span, kind: 'open', pos: utext.length });
  };
  for (let k = 0; k < items.length; k++) {
    const st = items[k]!;
    let end = st.end;
    if (st.name === 'XRef') {
      // The reference's displayed text is generated by FrameMaker: the whole XRef … XRefEnd stays one tag.
      const j = items.findIndex((x, i) => i > k && x.name === 'XRefEnd');
      if (j > k) {
        end = items[j]!.end;
        k = j;
      }
    }
    groups.push({ start: st.start, end });
    const raw = text.slice(st.start, end);
    if (st.name === 'String') {
      const s = st.strings.map((r) => decodeMifString(text.slice(r.start, r.end))).join('');
      if (s === '') continue;
      if (span === undefined) {
        openSpan('');
        pinnedStart.add(span!);
      }
      utext += s;
    } else if (st.name === 'Font') {
      openSpan(raw);
      lastFont = raw;
    } else if (span === undefined && utext === '') prefix.push(raw);
    else marks.push({ id: raws.push(raw) - 1, kind: 'empty', pos: utext.length });
  }
  if (!/[\p{L}\p{N}]/u.test(utext)) return undefined;
  if (span !== undefined) marks.push({ id: span, kind: 'close', pos: utext.length });
  // Statements after the last text (a closing HardReturn, an anchor) stay at the end of the paragraph.
  const suffix: string[] = [];
  while (marks.length >= 2 && marks[marks.length - 2]!.kind === 'empty' && marks[marks.length - 2]!.pos === utext.length) {
    suffix.unshift(raws[marks[marks.length - 2]!.id]!);
    marks.splice(marks.length - 2, 1);
  }
  const source: TaggedText = { text: utext, marks };
  // The paragraph's own font: the text before any Font statement, or a Font statement that only resets to it.
  const plain = (id: number) => raws[id]!.replace(/#[^\n]*/gu, '').replace(/<FTag `'>|<FLocked No>|\s+/gu, '') === (raws[id] ? '<Font>' : '');
  const rules = { pinnedStart, pinnedEnd: new Set<number>(), holdsText: () => true, plain };
  const sent = withoutRuns(source, rules);
  const unit = units.push(sent) - 1;

  const first = groups[0]!;
  const last = groups[groups.length - 1]!;
  const head = text.slice(para.start, first.start);
  const sep = /\r?\n[ \t]*$/u.exec(head)?.[0] ?? ' ';
  // Between content statements: the ParaLine boundaries and line statements are kept; blanks and comments are not.
  const glue = groups.slice(1).map((g, i) => text.slice(groups[i]!.end, g.start)).filter((g) => /[<>]/u.test(g.replace(/#[^\n]*/gu, '')));
  const tail = text.slice(last.end, para.end);

  return {
    para,
    unit,
    render(out) {
      const arranged = arrangeRuns(restoreRuns(keepBlanksAroundAtoms(sent, out, () => true), source, rules), rules, source);
      // An unchanged paragraph is written back as it was (line breaks, comments and all).
      if (arranged.text === source.text && JSON.stringify(arranged.marks) === JSON.stringify(source.marks)) return text.slice(para.start, para.end);
      const statements = [...prefix];
      let font = '';
      const addText = (s: string) => {
        const chars = [...s];
        for (let i = 0; i < chars.length; i += MAX_STRING) statements.push(`<String ${encodeMifString(chars.slice(i, i + MAX_STRING).join(''), unicode)}>`);
      };
      let at = 0;
      for (const mk of arranged.marks) {
        const pos = Math.max(at, Math.min(mk.pos, arranged.text.length));
        addText(arranged.text.slice(at, pos));
        at = pos;
        if (mk.kind === 'close') continue;
        const raw = raws[mk.id]!;
        if (raw === '') continue;
        statements.push(raw);
        if (mk.kind === 'open') font = raw;
      }
      addText(arranged.text.slice(at));
      // The paragraph ends in the font it ended in before, so nothing after it changes.
      if (lastFont !== '' && font !== lastFont) statements.push(lastFont);
      statements.push(...suffix);
      return head + statements.join(sep) + glue.join('') + tail;
    },
  };
}

// Markup benchmark: how often inline tags end up around the translation of the words they marked, on the markup
// corpus (test/fixtures/markup) en→es with real Apertium, for Tolk's two strategies (placeholders = tag_handling v1,
// realign = v2) against the baseline of Apertium's own HTML deformatter (`apertium -f html-noent`).
//
// Run: npm run bench:markup
// Measure per tag pair whose span has words (and is not the whole unit): translate the span alone (reference); the tag
// is well placed when at least half the reference's words are inside it and at least half of the words inside it are
// reference words (inflection-tolerant match). Realign locates spans with that same reference translation, so its
// figure is an upper bound; "fallbacks" counts units where it found nothing and used placeholders.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApertiumEngine } from '../src/engines/apertium/index.js';
import { parseMarkup, translateTagged, markTree, type InlineStrategy, type TaggedText } from '../src/markup/index.js';
import { sameWord } from '../src/markup/inline-translate.js';
import { checkTranslated, loadFixtures } from '../test/markup/markup-checks.js';
import { splitIntoSentences } from '../src/translate/segmentation.js';
import { segment as sentencex } from 'sentencex';

const WORD = /[\p{L}\p{N}]+/gu;
const words = (s: string) => (s.toLowerCase().match(WORD) ?? []) as string[];

/** Span of each pair id: [start, end) in the unit text. */
function pairSpans(u: TaggedText): Map<number, [number, number]> {
  const out = new Map<number, [number, number]>();
  const walk = (nodes: ReturnType<typeof markTree>) => {
    for (const n of nodes) {
      if (n.kind === 'pair') out.set(n.id, [n.start, n.end]);
      walk(n.children);
    }
  };
  walk(markTree(u.marks));
  return out;
}

function wellPlaced(ref: string, inside: string): boolean {
  const want = words(ref);
  const got = words(inside);
  if (want.length === 0) return true;
  const pool = [...got];
  let hits = 0;
  for (const w of want) {
    const k = pool.findIndex((g) => sameWord(g, w));
    if (k >= 0) {
      hits++;
      pool.splice(k, 1);
    }
  }
  return hits / want.length >= 0.5 && got.length > 0 && hits / got.length >= 0.5;
}

const esc = (s: string) => s.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;');

/** Baseline: all units through one `apertium -f html-noent eng-spa` run, tags as <tN>…</tN> and <eN/>. */
function apertiumHtml(units: TaggedText[]): TaggedText[] {
  const input = units
    .map((u) => {
      let s = '';
      let at = 0;
      for (const m of u.marks) {
        s += esc(u.text.slice(at, m.pos));
        at = m.pos;
        s += m.kind === 'open' ? `<t${m.id}>` : m.kind === 'close' ? `</t${m.id}>` : `<e${m.id}/>`;
      }
      return `<p>${s}${esc(u.text.slice(at))}</p>`;
    })
    .join('\n');
  // The apertium script needs a file argument when not run from a terminal.
  const dir = mkdtempSync(join(tmpdir(), 'tolk-markup-'));
  writeFileSync(join(dir, 'in.html'), input);
  spawnSync('apertium', ['-u', '-f', 'html-noent', 'eng-spa', join(dir, 'in.html'), join(dir, 'out.html')]);
  const stdout = readFileSync(join(dir, 'out.html'), 'utf8');
  rmSync(dir, { recursive: true, force: true });
  const paras = [...stdout.matchAll(/<p>([\s\S]*?)<\/p>/gu)].map((m) => m[1]!);
  return units.map((u, i) => {
    const raw = paras[i] ?? '';
    let text = '';
    const marks: TaggedText['marks'] = [];
    let at = 0;
    for (const m of raw.matchAll(/<(\/?)([te])(\d+)(\/?)>(?:<\/e\d+>)?/gu)) {
      text += raw.slice(at, m.index);
      at = m.index + m[0].length;
      marks.push({ id: Number(m[3]), kind: m[2] === 'e' ? 'empty' : m[1] ? 'close' : 'open', pos: text.length });
    }
    text += raw.slice(at);
    const unesc = (s: string) => s.replace(/&lt;/gu, '<').replace(/&gt;/gu, '>').replace(/&amp;/gu, '&');
    // positions were taken on escaped text; escaping is rare in the corpus, so re-measure on the unescaped string
    return { text: unesc(text), marks: u.marks.length ? marks : [] };
  });
}

const engine = new ApertiumEngine({ pairs: ['en-es'], maxPipelinesPerPair: 1 });
await engine.start();
const translate = (segs: string[]) => engine.translate({ source: 'en', target: 'es' }, segs, {});
const fixtures = loadFixtures();
const plans = fixtures.map((f) =>
  parseMarkup(f.text, {
    format: f.format,
    outlineDetection: f.options.outline_detection ?? true,
    splittingTags: f.options.splitting_tags ?? [],
    nonSplittingTags: f.options.non_splitting_tags ?? [],
    ignoreTags: f.options.ignore_tags ?? [],
    targetLang: 'es',
  }),
);

// References: every tagged span translated alone.
const jobs: { plan: number; unit: number; id: number; span: string }[] = [];
plans.forEach((p, pi) =>
  p.units.forEach((u, ui) => {
    for (const [id, [s, e]] of pairSpans(u)) {
      const span = u.text.slice(s, e);
      if (/[\p{L}\p{N}]/u.test(span) && span.trim() !== u.text.trim()) jobs.push({ plan: pi, unit: ui, id, span: span.trim() });
    }
  }),
);
const refs = await translate(jobs.map((j) => j.span));

// Untagged translations of the units that have tags (what the text would be without markup).
const tagged: [number, number][] = [];
plans.forEach((p, pi) => p.units.forEach((u, ui) => u.marks.some((m) => m.kind !== 'empty') && tagged.push([pi, ui])));
const plain = await translate(tagged.map(([pi, ui]) => plans[pi]!.units[ui]!.text));
const norm = (s: string) => s.replace(/\s+/gu, ' ').trim().toLowerCase();

const rows: string[] = [];
for (const strategy of ['apertium-html', 'placeholders', 'realign'] as const) {
  let segments = 0;
  const counting = async (segs: string[]) => {
    segments += segs.length;
    return translate(segs);
  };
  const t0 = performance.now();
  const outputs: TaggedText[][] = [];
  if (strategy === 'apertium-html') {
    // One apertium run for the whole corpus (each run pays ~0.5 s of start-up).
    const all = apertiumHtml(plans.flatMap((p) => p.units));
    let k = 0;
    for (const p of plans) outputs.push(all.slice(k, (k += p.units.length)));
  } else for (const p of plans) outputs.push(await translateTagged(p.units, counting, strategy as InlineStrategy));
  const ms = performance.now() - t0;
  let good = 0;
  jobs.forEach((j, k) => {
    const out = outputs[j.plan]![j.unit]!;
    const span = pairSpans(out).get(j.id);
    if (span && wellPlaced(refs[k]!, out.text.slice(span[0], span[1]))) good++;
  });
  // Translation quality kept: units with tags whose text equals the translation of the same text without tags.
  let same = 0;
  tagged.forEach(([pi, ui], k) => {
    if (norm(outputs[pi]![ui]!.text) === norm(plain[k]!)) same++;
  });
  const passing = strategy === 'apertium-html' ? '–' : String(fixtures.filter((f, i) => checkTranslated(f, plans[i]!.render(outputs[i]!)).length === 0).length);
  rows.push(
    `| ${strategy} | ${good}/${jobs.length} | ${((100 * good) / jobs.length).toFixed(1)} % | ${same}/${tagged.length} | ${passing}/${fixtures.length} | ${strategy === 'apertium-html' ? '–' : segments} | ${ms.toFixed(0)} |`,
  );
}
// Which placeholder syntaxes survive Apertium's pipeline: every mark of every tagged unit written in each syntax.
const SYNTAXES: [string, (kind: string, id: number) => string][] = [
  ['⟦n⟧ ⟦/n⟧ ⟦n/⟧ (used)', (k, id) => (k === 'open' ? `⟦${id}⟧` : k === 'close' ? `⟦/${id}⟧` : `⟦${id}/⟧`)],
  ['{n} {/n} {n/}', (k, id) => (k === 'open' ? `{${id}}` : k === 'close' ? `{/${id}}` : `{${id}/}`)],
  ['<gn> </gn> <xn/> (escaped text)', (k, id) => (k === 'open' ? `<g${id}>` : k === 'close' ? `</g${id}>` : `<x${id}/>`)],
  ['word tokens xqnx', (k, id) => ` xq${k[0]}${id}x `],
  ['private-use characters', (k, id) => String.fromCodePoint(0xe000 + id * 3 + (k === 'open' ? 0 : k === 'close' ? 1 : 2))],
];
const markedUnits = plans.flatMap((p) => p.units).filter((u) => u.marks.length > 0);
const survival: string[] = [];
const plainAll = await translate(markedUnits.map((u) => u.text));
for (const [label, fmt] of SYNTAXES) {
  const inputs = markedUnits.map((u) => {
    let s = '';
    let at = 0;
    for (const m of u.marks) {
      s += u.text.slice(at, m.pos) + fmt(m.kind, m.id);
      at = m.pos;
    }
    return s + u.text.slice(at);
  });
  const outs = await translate(inputs);
  let total = 0;
  let kept = 0;
  let same = 0;
  markedUnits.forEach((u, i) => {
    let stripped = outs[i]!;
    for (const m of u.marks) {
      total++;
      const token = fmt(m.kind, m.id).trim();
      if (outs[i]!.split(token).length === 2) kept++;
      stripped = stripped.split(token).join('');
    }
    if (norm(stripped) === norm(plainAll[i]!)) same++;
  });
  survival.push(`| ${label} | ${kept}/${total} | ${((100 * kept) / total).toFixed(1)} % | ${same}/${markedUnits.length} |`);
}

console.log(`corpus: ${fixtures.length} snippets, ${plans.reduce((n, p) => n + p.units.length, 0)} units, ${jobs.length} tagged spans with words\n`);
console.log('| strategy | tags well placed | share | tagged units translated as without tags | snippets passing all checks | engine segments | ms (corpus) |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const r of rows) console.log(r);
console.log('\n| placeholder syntax | marks back exactly once | share | units translated as without marks |');
console.log('|---|---:|---:|---:|');
for (const r of survival) console.log(r);
await engine.close();

// Sentence segmenters: time on long input, and sentences with abbreviations (each must stay one sentence).
const ABBREV = [
  ['en', 'Dr. Smith met Mr. Jones at 3 p.m. on Jan. 5 in the U.S. office.'],
  ['en', 'We use e.g. tools, i.e. programs, etc. every day.'],
  ['de', 'Das ist z. B. ein Test mit ca. 20 Wörtern, u. a. für Dr. Müller.'],
  ['fr', 'M. Dupont a vu Mme Martin, p. ex. au bureau.'],
  ['es', 'El Sr. García llegó a las 5 p. m. con la Dra. López.'],
] as const;
const LONG = 'The committee met on Monday. Dr. Lee presented the results, e.g. the new figures. Everyone agreed! '.repeat(500);
const timeIt = (fn: () => unknown) => {
  const t = performance.now();
  for (let i = 0; i < 3; i++) fn();
  return (performance.now() - t) / 3;
};
const intl = (lang: string, text: string) => [...new Intl.Segmenter(lang, { granularity: 'sentence' }).segment(text)].map((x) => x.segment);
console.log(`\n| segmenter | ${LONG.length} chars, ms | abbreviation sentences kept whole |`);
console.log('|---|---:|---:|');
for (const [name, fn] of [
  ['sentencex, chunks of 2000 (used)', (l: string, t: string) => splitIntoSentences(t, l)],
  ['sentencex, whole text', (l: string, t: string) => sentencex(l, t)],
  ['Intl.Segmenter', intl],
] as const) {
  const ok = ABBREV.filter(([l, t]) => fn(l, t).length === 1).length;
  console.log(`| ${name} | ${timeIt(() => fn('en', LONG)).toFixed(1)} | ${ok}/${ABBREV.length} |`);
}

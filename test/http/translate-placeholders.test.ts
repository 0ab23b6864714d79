// App-string placeholders ({name}, {{count}}, %s, %1$s, %(name)s, ${user}, :name, $t(key), <0>…</0>, ICU plural and
// select) through every Apertium route of /v2/translate: direct, a pivot (en→pt through es), with a glossary (direct
// and pivot), tag_handling=html and xml, LibreTranslate's /translate and a plain-text document. Each keeps every placeholder and translates around it;
// texts that only look like placeholders ("Note: the", "50% done") translate exactly as the engine does.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TranslationEngine } from '../../src/engines/engine.js';
import { DocumentClient } from '../helpers/documents.js';
import { authHeaders, createAccount, createTestApp, testEngines, type TestAccount, type TestContext } from '../helpers/harness.js';
import { describeRoutes, once, SHAPES, type PlaceholderShape } from '../markup/placeholder-shapes.js';

let ctx: TestContext;
let pro: TestAccount;
let apertium: TranslationEngine;

before(async () => {
  [apertium] = testEngines(['en-es', 'es-pt']) as [TranslationEngine];
  ctx = await createTestApp({ engines: [apertium], env: { TOLK_LIBRETRANSLATE: 'true' } });
  pro = await createAccount(ctx);
});
after(async () => ctx.close());

const api = (method: 'GET' | 'POST', url: string, payload?: object) => ctx.app.inject({ method, url, headers: authHeaders(pro), ...(payload ? { payload } : {}) });

async function translate(texts: string[], body: Record<string, unknown>): Promise<string[]> {
  const res = await api('POST', '/v2/translate', { text: texts, source_lang: 'EN', ...body });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().translations.map((t: { text: string }) => t.text);
}

async function glossary(target: string, entries: string): Promise<string> {
  const res = await api('POST', '/v3/glossaries', { name: `terms ${target}`, dictionaries: [{ source_lang: 'en', target_lang: target, entries, entries_format: 'tsv' }] });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().glossary_id;
}

/** The shapes' texts as markup (in a paragraph, their own tags escaped), and their translations' text read back. */
async function translateMarkup(format: 'html' | 'xml'): Promise<string[]> {
  const escape = (s: string) => s.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;');
  const unescape = (s: string) => s.replace(/&lt;/gu, '<').replace(/&gt;/gu, '>').replace(/&amp;/gu, '&');
  const out = await translate(texts.map((t) => `<p>${escape(t)}</p>`), { target_lang: 'ES', tag_handling: format });
  return out.map((o) => {
    assert.match(o, /^<p>.*<\/p>$/su);
    return unescape(o.slice(3, -4));
  });
}

/** Glossary terms of the shapes' sentences: each sentence with one must have its target in the translation. */
const TERMS: [string, string][] = [
  ['hello', 'saludos'],
  ['messages', 'avisos'],
  ['file', 'documento'],
  ['order', 'pedido'],
  ['details', 'pormenores'],
  ['online', 'conectado'],
];

function assertTermsUsed(shape: PlaceholderShape, output: string): void {
  for (const [source, target] of TERMS) {
    if (new RegExp(`\\b${source}\\b`, 'iu').test(shape.text)) assert.match(output, new RegExp(target, 'iu'), `${source} → ${target} in ${output}`);
  }
}

const texts = SHAPES.map((s) => s.text);
describeRoutes([
  { name: 'Apertium en→es', outputs: once(() => translate(texts, { target_lang: 'ES' })), check: (s, o) => assert.match(o, s.es) },
  { name: 'pivot en→pt-BR through es', outputs: once(() => translate(texts, { target_lang: 'PT-BR' })), check: (s, o) => assert.match(o, s.pt) },
  {
    name: 'en→es with a glossary',
    outputs: once(async () => translate(texts, { target_lang: 'ES', glossary_id: await glossary('es', TERMS.map((t) => t.join('\t')).join('\n')) })),
    check: assertTermsUsed,
  },
  {
    name: 'pivot en→pt-BR with a glossary',
    outputs: once(async () => translate(texts, { target_lang: 'PT-BR', glossary_id: await glossary('pt', TERMS.map((t) => t.join('\t')).join('\n')) })),
    check: assertTermsUsed,
  },
  { name: 'tag_handling=html en→es', outputs: once(() => translateMarkup('html')), check: (s, o) => assert.match(o, s.es) },
  { name: 'tag_handling=xml en→es', outputs: once(() => translateMarkup('xml')), check: (s, o) => assert.match(o, s.es) },
  {
    name: 'LibreTranslate /translate en→es',
    outputs: once(async () => {
      const res = await ctx.app.inject({ method: 'POST', url: '/translate', headers: { host: pro.host }, payload: { q: texts, source: 'en', target: 'es', api_key: pro.key } });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().translatedText;
    }),
    check: (s, o) => assert.match(o, s.es),
  },
  {
    name: 'plain-text document en→es',
    outputs: once(async () => {
      const { status, file } = await new DocumentClient(ctx, pro).translateFile([
        { name: 'file', filename: 'strings.txt', content: Buffer.from(texts.join('\n') + '\n') },
        { name: 'source_lang', value: 'EN' },
        { name: 'target_lang', value: 'ES' },
      ]);
      assert.equal(status.status, 'done', JSON.stringify(status));
      return file!.data.toString('utf8').split('\n').slice(0, texts.length);
    }),
    check: (s, o) => assert.match(o, s.es),
  },
]);

describe('malformed placeholders', () => {
  it('are answered, every tag kept: crossing tags, tags across ICU branches, an unclosed message', async () => {
    const HOSTILE = ['<0>a <1>b</0> c</1>', '{a, plural, one {<0>x} other {y</0>}}', '{count, plural, one {# item}', '<0>'.repeat(2000) + 'text'];
    const outputs = await translate(HOSTILE, { target_lang: 'ES' });
    const tags = (t: string) => [...t.matchAll(/<\/?\d+>/gu)].map((m) => m[0]);
    HOSTILE.forEach((text, i) => assert.deepEqual(tags(outputs[i]!), tags(text), outputs[i]));
  });
});

describe('texts that only look like placeholders', () => {
  const PROSE = [
    'Note: the meeting is at 10:30.',
    'It is 50% done, and prices fell 20% over the year.',
    'Re:Subject was the title of the mail.',
    'Use C# or F# for the #1 task.',
    'If a < b and b > c, then a is smaller.',
    'The ratio was 3:2 in our favour.',
    'Call me at 5 p.m. :)',
  ];

  it('translate as the engine translates them alone (nothing of them is kept from it)', async () => {
    const outputs = await translate(PROSE, { target_lang: 'ES' });
    // The engine's doubled blanks are made single by the core's formatting, with or without placeholders.
    const blanks = (texts: string[]) => texts.map((t) => t.replace(/\s+/gu, ' '));
    const direct = await apertium.translate({ source: 'en', target: 'es' }, PROSE, {});
    assert.deepEqual(blanks(outputs), blanks(direct));
    assert.match(outputs[0]!, /^Nota: la reunión/u);
    assert.match(outputs[1]!, /50%/u);
  });
});

// Malformed markup fuzz: random mutations of the corpus never crash or answer 500; malformed XML is a clear 400,
// HTML is never rejected, and whatever is accepted comes back well-formed.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authHeaders, createAccount, createTestApp, testEngines, type TestAccount, type TestContext } from '../helpers/harness.js';
import { parseMarkup, TAG_PARSE_FAILED } from '../../src/markup/index.js';
import { ServiceError } from '../../src/lib/errors.js';
import { loadFixtures, xmlError } from './markup-checks.js';

/** Deterministic PRNG (mulberry32) so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const INSERTS = ['<', '>', '&', '</b>', '<i>', '<!--', ']]>', '"', '&bogus;', '<?', '</', '<a href="x>', '\u0000', '&#xD800;', '<![CDATA['];

export function mutate(text: string, rand: () => number): string {
  let t = text;
  const n = 1 + Math.floor(rand() * 3);
  for (let k = 0; k < n; k++) {
    const at = Math.floor(rand() * (t.length + 1));
    switch (Math.floor(rand() * 4)) {
      case 0:
        t = t.slice(0, at) + t.slice(at + 1 + Math.floor(rand() * 5));
        break;
      case 1:
        t = t.slice(0, at) + INSERTS[Math.floor(rand() * INSERTS.length)] + t.slice(at);
        break;
      case 2:
        t = t.slice(0, at);
        break;
      default: {
        const from = Math.floor(rand() * t.length);
        t = t.slice(0, at) + t.slice(from, from + 12) + t.slice(at);
      }
    }
  }
  return t;
}

const fixtures = loadFixtures();
const rand = rng(20241122);
const mutants = Array.from({ length: 400 }, (_, i) => {
  const f = fixtures[i % fixtures.length]!;
  return { format: f.format, text: mutate(f.text, rand) };
});

describe('markup fuzz (parser level)', () => {
  it('never throws anything but the 400 on 400 mutants, and identity rendering stays well-formed', () => {
    for (const m of mutants) {
      try {
        const plan = parseMarkup(m.text, { format: m.format, outlineDetection: true, splittingTags: [], nonSplittingTags: [], ignoreTags: [], targetLang: 'es' });
        const out = plan.render(plan.units);
        if (m.format === 'xml') assert.equal(xmlError(out), undefined, `${JSON.stringify(m.text)} → ${JSON.stringify(out)}`);
      } catch (err) {
        assert.ok(m.format === 'xml', `HTML rejected: ${JSON.stringify(m.text)}: ${String(err)}`);
        assert.ok(err instanceof ServiceError && err.message === TAG_PARSE_FAILED, String(err));
      }
    }
  });
});

describe('markup fuzz (HTTP)', () => {
  let ctx: TestContext;
  let pro: TestAccount;
  before(async () => {
    ctx = await createTestApp({ engines: testEngines(['en-es']) });
    pro = await createAccount(ctx);
  });
  after(async () => ctx.close());

  const post = (text: string[], format: string) =>
    ctx.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: authHeaders(pro),
      payload: { text, source_lang: 'EN', target_lang: 'ES', tag_handling: format },
    });

  it('HTML mutants are all translated (never 4xx/5xx)', async () => {
    const html = mutants.filter((m) => m.format === 'html').slice(0, 100).map((m) => m.text);
    for (let i = 0; i < html.length; i += 50) {
      const res = await post(html.slice(i, i + 50), 'html');
      assert.equal(res.statusCode, 200, res.body);
    }
  });

  it('XML mutants answer 200 with well-formed XML or 400 with the reference message', async () => {
    const xml = mutants.filter((m) => m.format === 'xml').slice(0, 40);
    for (const m of xml) {
      const res = await post([m.text], 'xml');
      if (res.statusCode === 200) assert.equal(xmlError(res.json().translations[0].text), undefined, m.text);
      else {
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().message, TAG_PARSE_FAILED);
      }
    }
  });
});

// The markup corpus (test/fixtures/markup) translated en→es by real Apertium over HTTP with both tag handling
// versions: well-formed output, same tags in the same nesting, verbatim parts byte-identical, text translated.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authHeaders, createAccount, createTestApp, testEngines, type TestAccount, type TestContext } from '../helpers/harness.js';
import { checkTranslated, loadFixtures, type FixtureCase } from './markup-checks.js';

let ctx: TestContext;
let pro: TestAccount;

before(async () => {
  ctx = await createTestApp({ engines: testEngines(['en-es']) });
  pro = await createAccount(ctx);
});
after(async () => ctx.close());

const fixtures = loadFixtures();

/** Fixtures sharing format and options go in one request (at most 50 texts). */
function groups(): FixtureCase[][] {
  const by = new Map<string, FixtureCase[]>();
  for (const f of fixtures) {
    const key = `${f.format} ${JSON.stringify(f.options)}`;
    by.set(key, [...(by.get(key) ?? []), f]);
  }
  return [...by.values()];
}

async function translateGroup(cases: FixtureCase[], version: 'v1' | 'v2') {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/v2/translate',
    headers: authHeaders(pro),
    payload: {
      text: cases.map((c) => c.text),
      source_lang: 'EN',
      target_lang: 'ES',
      tag_handling: cases[0]!.format,
      tag_handling_version: version,
      show_billed_characters: true,
      ...cases[0]!.options,
    },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().translations as { text: string; tag_handling_version: string; billed_characters: number }[];
}

describe('markup corpus en→es', () => {
  it('has at least 40 snippets', () => assert.ok(fixtures.length >= 40, String(fixtures.length)));

  for (const version of ['v1', 'v2'] as const) {
    it(`every snippet passes every check (tag_handling_version ${version})`, async () => {
      const failures: string[] = [];
      for (const group of groups()) {
        const out = await translateGroup(group, version);
        group.forEach((c, i) => {
          assert.equal(out[i]!.tag_handling_version, version);
          // Billing counts text only: fewer characters than the markup.
          assert.ok(out[i]!.billed_characters < [...c.text].length, c.name);
          for (const p of checkTranslated(c, out[i]!.text)) failures.push(`${c.name}: ${p}\n  out: ${out[i]!.text}`);
        });
      }
      assert.deepEqual(failures, []);
    });
  }

  it('reports the default version v2 and bills the text content only', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: authHeaders(pro),
      payload: { text: ['<p>The <b>dog</b> sleeps.</p>'], target_lang: 'ES', tag_handling: 'html', show_billed_characters: true },
    });
    assert.equal(res.statusCode, 200, res.body);
    const t = res.json().translations[0];
    assert.equal(t.tag_handling_version, 'v2');
    assert.equal(t.billed_characters, [...'The dog sleeps.'].length);
    assert.match(t.text, /^<p>.*<b>perro<\/b>.*<\/p>$/u);
  });

  it('answers 400 with the reference message for malformed XML', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: authHeaders(pro),
      payload: { text: ['<p>The <b>dog</p> sleeps.'], target_lang: 'ES', tag_handling: 'xml' },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().message, 'Tag handling parsing failed, please check input.');
  });

  it('takes comma-separated tag lists from a form body', async () => {
    const text = '<p>Run <cmd>make all</cmd> and then <code>make install</code> in the folder.</p>';
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: { ...authHeaders(pro), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `text=${encodeURIComponent(text)}&source_lang=EN&target_lang=ES&tag_handling=xml&ignore_tags=cmd,code`,
    });
    assert.equal(res.statusCode, 200, res.body);
    const out = res.json().translations[0];
    assert.equal(out.tag_handling_version, 'v2');
    assert.ok(out.text.includes('<cmd>make all</cmd>') && out.text.includes('<code>make install</code>'), out.text);
    assert.match(out.text, /carpeta/u);
  });

  it('does not report tag_handling_version without tag handling', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: authHeaders(pro),
      payload: { text: ['The dog sleeps.'], target_lang: 'ES', source_lang: 'EN' },
    });
    assert.equal(res.json().translations[0].tag_handling_version, undefined);
  });
});

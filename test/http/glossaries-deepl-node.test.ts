// The official deepl-node client manages v2 and v3 glossaries on a real Tolk listener unchanged.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as deepl from 'deepl-node';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';
import { HUNG_TEST_MS } from '../helpers/wait.js';

let ctx: TestContext;
let pro: TestAccount;
let url: string;

before(async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  url = `http://127.0.0.1:${port}`;
  ctx = await createTestApp({ engines: [], env: { TOLK_PORT: String(port), TOLK_FREE_PORT: String(port), TOLK_BASE_URL: url, TOLK_FREE_BASE_URL: url } });
  pro = await createAccount(ctx, { plan: 'pro' });
  await ctx.app.listen({ port, host: '127.0.0.1' });
});
after(async () => ctx.close());

describe('deepl-node glossaries against Tolk', () => {
  it('v2: create, get, list, entries, language pairs, delete', async () => {
    const t = new deepl.Translator(pro.key, { serverUrl: url, minTimeout: 2 * HUNG_TEST_MS });
    const g = await t.createGlossary('Test', 'en', 'de', new deepl.GlossaryEntries({ entries: { Hello: 'Hallo', World: 'Welt' } }));
    assert.equal(g.entryCount, 2);
    assert.equal(g.sourceLang, 'en');
    assert.equal((await t.getGlossary(g.glossaryId)).name, 'Test');
    assert.ok((await t.listGlossaries()).some((x) => x.glossaryId === g.glossaryId));
    assert.deepEqual((await t.getGlossaryEntries(g)).entries(), { Hello: 'Hallo', World: 'Welt' });
    assert.ok((await t.getGlossaryLanguagePairs()).some((p) => p.sourceLang === 'en' && p.targetLang === 'de'));
    const csv = await t.createGlossaryWithCsv('Csv', 'en', 'fr', Buffer.from('a,b\n"c, d",e'));
    assert.equal(csv.entryCount, 2);
    await t.deleteGlossary(g);
    await assert.rejects(t.getGlossary(g.glossaryId), deepl.GlossaryNotFoundError);
  });

  it('v3: multilingual create, update (merge), replace, entries, delete dictionary, rename', async () => {
    const c = new deepl.DeepLClient(pro.key, { serverUrl: url, minTimeout: 2 * HUNG_TEST_MS });
    const g = await c.createMultilingualGlossary('Multi', [
      { sourceLangCode: 'en', targetLangCode: 'de', entries: new deepl.GlossaryEntries({ entries: { Hello: 'Hallo' } }) },
      { sourceLangCode: 'de', targetLangCode: 'en', entries: new deepl.GlossaryEntries({ entries: { Hallo: 'Hello' } }) },
    ]);
    assert.equal(g.dictionaries.length, 2);
    const updated = await c.updateMultilingualGlossaryDictionary(g, { sourceLangCode: 'en', targetLangCode: 'de', entries: new deepl.GlossaryEntries({ entries: { Bye: 'Tschüss' } }) });
    assert.equal(updated.dictionaries.find((d) => d.sourceLangCode === 'en')!.entryCount, 2);
    const replaced = await c.replaceMultilingualGlossaryDictionary(g, { sourceLangCode: 'en', targetLangCode: 'de', entries: new deepl.GlossaryEntries({ entries: { Yes: 'Ja' } }) });
    assert.equal(replaced.entryCount, 1);
    const entries = await c.getMultilingualGlossaryDictionaryEntries(g, 'en', 'de');
    assert.deepEqual(entries.entries.entries(), { Yes: 'Ja' });
    await c.deleteMultilingualGlossaryDictionary(g, 'de', 'en');
    assert.equal((await c.getMultilingualGlossary(g.glossaryId)).dictionaries.length, 1);
    assert.equal((await c.updateMultilingualGlossaryName(g, 'Renamed')).name, 'Renamed');
    assert.ok((await c.listMultilingualGlossaries()).some((x) => x.glossaryId === g.glossaryId));
    await c.deleteMultilingualGlossary(g);
  });
});

describe('deepl-node translation memories against Tolk', () => {
  it('imports a TMX file and exports it again through the signed upload and download URLs', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tolk-tm-'));
    try {
      const client = new deepl.DeepLClient(pro.key, { serverUrl: url, minTimeout: 2 * HUNG_TEST_MS });
      const tmx = path.join(dir, 'legal.tmx');
      writeFileSync(tmx, readFileSync(new URL('../../../test/fixtures/customization/small.tmx', import.meta.url)));
      const imported = await client.importTranslationMemoryFromFilepath(tmx, { displayName: 'Legal', timeoutMs: 60_000 });
      assert.equal(imported.results[0]?.status, 'completed', JSON.stringify(imported));
      const memory = (await client.listTranslationMemories()).find((m) => m.name === 'Legal');
      assert.ok(memory, 'imported memory listed');
      const out = path.join(dir, 'export.tmx');
      await client.exportTranslationMemoryToFilepath(memory!, out);
      assert.match(readFileSync(out, 'utf8'), /<seg>La impresora no tiene papel\.<\/seg>/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

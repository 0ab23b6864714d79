// The official deepl-node DeepLClient against a real Tolk listener, unchanged: style rules, rephrasing, translation
// memories beyond import/export, every translateText option, and the low-level document and CSV glossary methods.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as deepl from 'deepl-node';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LlmEngine } from '../../src/engines/llm/index.js';
import { startFakeLlmServer, type FakeLlmServer } from '../engines/llm-test-server.js';
import { createAccount, createTestApp, testEngines, type TestAccount, type TestContext, freePort } from '../helpers/harness.js';
import { countStatusPolls } from '../helpers/documents.js';
import { HUNG_TEST_MS } from '../helpers/wait.js';

let llm: FakeLlmServer;
let ctx: TestContext;
let offline: TestContext;
let pro: TestAccount;
let offlinePro: TestAccount;
let url: string;
let offlineUrl: string;
let dir: string;
let client: deepl.DeepLClient;
let polls: Map<string, number>;

const urlEnv = (port: number, base: string, dataDir?: string) => ({
  TOLK_PORT: String(port),
  TOLK_FREE_PORT: String(port),
  TOLK_BASE_URL: base,
  TOLK_FREE_BASE_URL: base,
  ...(dataDir ? { TOLK_DATA_DIR: dataDir } : {}),
});

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tolk-deepl-clients-'));
  llm = await startFakeLlmServer();
  const [port, offlinePort] = [await freePort(), await freePort()];
  url = `http://127.0.0.1:${port}`;
  offlineUrl = `http://127.0.0.1:${offlinePort}`;
  // Apertium first (en-es and friends), the language model for English and German only (rephrase, en→de).
  const engines = [...testEngines(), new LlmEngine({ url: llm.url, model: 'test', languages: ['en', 'en-us', 'en-gb', 'de'], timeoutMs: HUNG_TEST_MS, retries: 0, backoffMs: 5 })];
  [ctx, offline] = await Promise.all([
    // a status request waits for its job however slow the machine, so "done at the first poll" does not race it
    createTestApp({ engines, env: urlEnv(port, url, join(dir, 'data')), documents: { statusWaitMs: HUNG_TEST_MS } }),
    createTestApp({ engines: [], env: urlEnv(offlinePort, offlineUrl) }),
  ]);
  [pro, offlinePro] = await Promise.all([createAccount(ctx, { plan: 'pro' }), createAccount(offline, { plan: 'pro' })]);
  await Promise.all([ctx.app.listen({ port, host: '127.0.0.1' }), offline.app.listen({ port: offlinePort, host: '127.0.0.1' })]);
  // requests may last as long as the server holds a document status request (HUNG_TEST_MS)
  client = new deepl.DeepLClient(pro.key, { serverUrl: url, maxRetries: 0, minTimeout: 2 * HUNG_TEST_MS });
  polls = countStatusPolls(ctx);
});
after(async () => {
  await Promise.all([ctx?.close(), offline?.close()]);
  await llm?.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  llm.requests.length = 0;
  llm.answers.clear();
});

describe('deepl-node style rules against Tolk', () => {
  it('create, list (plain, detailed, paged), get, rename, replace configured rules', async () => {
    const created = await client.createStyleRule({
      name: 'Numbers',
      language: 'es',
      configured_rules: { numbers: { decimal_separator: 'use_comma_as_decimal_separator' } },
      custom_instructions: [{ label: 'Tone', prompt: 'Be polite.', source_language: 'en' }],
    });
    assert.match(created.styleId, /^[0-9a-f-]{36}$/);
    assert.equal(created.name, 'Numbers');
    assert.equal(created.language, 'es');
    assert.equal(created.version, 1);
    assert.ok(!Number.isNaN(created.creationTime.getTime()) && !Number.isNaN(created.updatedTime.getTime()));
    assert.deepEqual(created.configuredRules?.numbers, { decimal_separator: 'use_comma_as_decimal_separator' });
    assert.equal(created.customInstructions?.[0]?.prompt, 'Be polite.');
    assert.equal(created.customInstructions?.[0]?.sourceLanguage, 'en');
    const second = await client.createStyleRule({ name: 'Second', language: 'de' });

    const plain = await client.getAllStyleRules();
    assert.deepEqual(plain.map((r) => r.name).sort(), ['Numbers', 'Second']);
    assert.equal(plain.find((r) => r.styleId === created.styleId)!.configuredRules, undefined, 'not detailed: no rules');
    const detailed = await client.getAllStyleRules(0, 25, true);
    assert.deepEqual(detailed.find((r) => r.styleId === created.styleId)!.configuredRules?.numbers, { decimal_separator: 'use_comma_as_decimal_separator' });
    const [page0, page1, page2] = [await client.getAllStyleRules(0, 1), await client.getAllStyleRules(1, 1), await client.getAllStyleRules(2, 1)];
    assert.equal(page0.length, 1);
    assert.equal(page1.length, 1);
    assert.notEqual(page0[0]!.styleId, page1[0]!.styleId);
    assert.equal(page2.length, 0);
    await assert.rejects(client.getAllStyleRules(0, 26), (e: Error) => e instanceof deepl.DeepLError && /page_size/.test(e.message));

    const got = await client.getStyleRule(created.styleId);
    assert.equal(got.name, 'Numbers');
    assert.equal(got.customInstructions?.length, 1);
    const renamed = await client.updateStyleRuleName(created.styleId, 'Zahlen');
    assert.equal(renamed.name, 'Zahlen');
    assert.equal(renamed.version, 2);
    const rules = await client.updateStyleRuleConfiguredRules(created.styleId, {
      numbers: { decimal_separator: 'use_comma_as_decimal_separator' },
      punctuation: { quotation_mark: 'use_guillemets' },
    });
    assert.equal(rules.version, 3);
    assert.deepEqual(rules.configuredRules?.punctuation, { quotation_mark: 'use_guillemets' });
    await assert.rejects(client.updateStyleRuleConfiguredRules(created.styleId, { numbers: { decimal_separator: 'roman' } }), (e: Error) => e instanceof deepl.DeepLError && /Bad request/.test(e.message));

    await client.deleteStyleRule(second.styleId);
    await assert.rejects(client.getStyleRule(second.styleId), (e: Error) => e instanceof deepl.DeepLError && /Not found/.test(e.message));
  });

  it('custom instructions: create, get, update, delete; translation with the rule applies its deterministic rules', async () => {
    const rule = await client.createStyleRule({ name: 'Spanish', language: 'es', configured_rules: { numbers: { decimal_separator: 'use_comma_as_decimal_separator' } } });
    const instruction = await client.createStyleRuleCustomInstruction(rule.styleId, { label: 'Brevity', prompt: 'Keep it short.' });
    assert.equal(instruction.label, 'Brevity');
    assert.equal(instruction.sourceLanguage, undefined);
    const instructionId = instruction.id!;
    assert.match(instructionId, /^[0-9a-f-]{36}$/);
    assert.deepEqual(await client.getStyleRuleCustomInstruction(rule.styleId, instructionId), instruction);
    const updated = await client.updateStyleRuleCustomInstruction(rule.styleId, instructionId, { label: 'Brevity', prompt: 'Keep it very short.', source_language: 'en' });
    assert.equal(updated.id, instructionId);
    assert.equal(updated.prompt, 'Keep it very short.');
    assert.equal((await client.getStyleRule(rule.styleId)).customInstructions?.[0]?.prompt, 'Keep it very short.');

    // Apertium has no language model: a rule list with a custom instruction is refused, never silently ignored.
    await assert.rejects(client.translateText('The price is 3.5 euros.', 'en', 'es', { styleRule: rule }), (e: Error) => e instanceof deepl.DeepLError && /Custom instructions/.test(e.message));
    await client.deleteStyleRuleCustomInstruction(rule.styleId, instructionId);
    await assert.rejects(client.getStyleRuleCustomInstruction(rule.styleId, instructionId), (e: Error) => e instanceof deepl.DeepLError && /Not found/.test(e.message));
    assert.deepEqual((await client.getStyleRule(rule.styleId)).customInstructions ?? [], []);

    const plain = await client.translateText('The price is 3.5 euros.', 'en', 'es');
    assert.match(plain.text, /precio/);
    assert.match(plain.text, /3\.5/);
    const styled = await client.translateText('The price is 3.5 euros.', 'en', 'es', { styleRule: rule.styleId });
    assert.match(styled.text, /precio/);
    assert.match(styled.text, /3,5/);
    const byInfo = await client.translateText('The price is 3.5 euros.', 'en', 'es', { styleRule: rule });
    assert.equal(byInfo.text, styled.text);
    const german = await client.createStyleRule({ name: 'DE', language: 'de' });
    await assert.rejects(client.translateText('Hello.', 'en', 'es', { styleRule: german }), (e: Error) => e instanceof deepl.DeepLError && /Style rule language does not match/.test(e.message));
    await assert.rejects(client.translateText('Hello.', 'en', 'es', { styleRule: '00000000-0000-4000-8000-000000000000' }), (e: Error) => e instanceof deepl.DeepLError && /Not found/.test(e.message));
  });
});

describe('deepl-node rephraseText against Tolk', () => {
  it('a string gives one result, an array gives an array; writing style and tone reach the model', async () => {
    llm.answers.set('I could relly use sum help.', 'I could really use some help.');
    const one = await client.rephraseText('I could relly use sum help.', 'en-US');
    assert.equal(one.text, 'I could really use some help.');
    assert.equal(one.targetLang, 'en-US');
    assert.equal(one.detectedSourceLang, 'en');

    llm.answers.set('this are fine', 'This is fine.');
    llm.answers.set('We meets at noon.', 'We meet at noon.');
    const many = await client.rephraseText(['this are fine', 'We meets at noon.'], 'en-GB', deepl.WritingStyle.BUSINESS);
    assert.deepEqual(many.map((r) => r.text), ['This is fine.', 'We meet at noon.']);
    assert.ok(many.every((r) => r.targetLang === 'en-GB'));
    assert.match(llm.requests.at(-1)!.system, /business style/);

    await client.rephraseText('We meets at noon.', 'en-US', null, deepl.WritingTone.FRIENDLY);
    assert.match(llm.requests.at(-1)!.system, /friendly tone/);
    await assert.rejects(
      client.rephraseText('x', 'en-US', deepl.WritingStyle.CASUAL, deepl.WritingTone.FRIENDLY),
      (e: Error) => e instanceof deepl.DeepLError && /Both writing_style and tone defined/.test(e.message),
    );
    await assert.rejects(client.rephraseText('Hola.', 'es'), (e: Error) => e instanceof deepl.DeepLError && /target_lang/.test(e.message));
  });

  it('without a language model the client surfaces a Bad request naming what is missing', async () => {
    const off = new deepl.DeepLClient(offlinePro.key, { serverUrl: offlineUrl, maxRetries: 0, minTimeout: 2 * HUNG_TEST_MS });
    await assert.rejects(off.rephraseText('I could relly use sum help.', 'en-US'), (e: Error) => e instanceof deepl.DeepLError && /Bad request/.test(e.message) && /language-model engine/.test(e.message));
  });
});

describe('deepl-node translation memories against Tolk', () => {
  async function importSmall(name: string): Promise<deepl.TranslationMemoryJob> {
    const tmx = readFileSync(new URL('../../../test/fixtures/customization/small.tmx', import.meta.url));
    const created = await client.createTranslationMemoryImport('small.tmx', tmx.length, { displayName: name });
    assert.ok(created.expiresAt instanceof Date);
    const pending = await client.getTranslationMemoryJob(created.jobId);
    assert.equal(pending.results[0]?.status, 'awaiting_input');
    assert.equal(pending.results[0]?.requiredAction, 'upload_file');
    assert.equal(pending.operation, 'import');
    await client.uploadTranslationMemoryFile(created, tmx);
    await ctx.services.memories.idle(); // no 5 s client poll
    return client.isTranslationMemoryJobComplete(created.jobId, 10_000);
  }

  it('get, segments (paged, filtered), export job and download, translate with the memory, delete', async () => {
    const job = await importSmall('Printers');
    assert.equal(job.results[0]?.status, 'completed');
    assert.equal(job.displayName, 'Printers');
    const memoryId = job.results[0]!.translationMemoryId!;
    assert.ok(memoryId);

    const memory = await client.getTranslationMemory(memoryId);
    assert.equal(memory.name, 'Printers');
    assert.equal(memory.sourceLanguage, 'en');
    assert.deepEqual(memory.targetLanguages, ['es']);
    assert.equal(memory.segmentCount, 2);
    assert.ok(memory.creationTime instanceof Date);

    const all = await client.listTranslationMemorySegments(memory);
    assert.equal(all.segmentCount, 2);
    assert.equal(all.nextPageCursor, undefined);
    assert.deepEqual(all.segments.map((s) => [s.sourceText, s.targets.map((t) => [t.targetLanguage, t.targetText])]), [
      ['The printer is out of paper.', [['es', 'La impresora no tiene papel.']]],
      ['Restart the computer before installing the update.', [['es', 'Reinicie el ordenador antes de instalar la actualización.']]],
    ]);
    assert.ok(all.segments.every((s) => s.sourceSegmentId && s.targets[0]!.targetSegmentId));
    const first = await client.listTranslationMemorySegments(memoryId, { pageSize: 1 });
    assert.equal(first.segments.length, 1);
    assert.ok(first.nextPageCursor);
    const rest = await client.listTranslationMemorySegments(memoryId, { pageSize: 1, pageCursor: first.nextPageCursor });
    assert.equal(rest.segments[0]?.sourceText, 'Restart the computer before installing the update.');
    assert.equal(rest.nextPageCursor, undefined);
    const filtered = await client.listTranslationMemorySegments(memoryId, { filterText: 'ORDENADOR' });
    assert.deepEqual(filtered.segments.map((s) => s.sourceText), ['Restart the computer before installing the update.']);
    assert.equal(filtered.segmentCount, 2, 'segment_count is the whole memory');
    assert.equal((await client.listTranslationMemorySegments(memoryId, { filterText: 'ORDENADOR', filterCaseSensitive: true })).segments.length, 0);
    await assert.rejects(client.listTranslationMemorySegments(memoryId, { filterText: 'o' }), (e: Error) => /Value for 'filter_text' not supported/.test(e.message));
    // A cursor is bound to the filter it was issued under.
    await assert.rejects(client.listTranslationMemorySegments(memoryId, { pageSize: 1, pageCursor: first.nextPageCursor, filterText: 'printer' }), (e: Error) => /Value for 'page_cursor' not supported/.test(e.message));
    await assert.rejects(client.listTranslationMemorySegments(memoryId, { pageSize: 101 }), (e: Error) => /Value for 'page_size' not supported/.test(e.message));

    const exp = await client.createTranslationMemoryExport(memory);
    assert.equal(exp.translationMemoryId, memoryId);
    assert.equal(exp.reusedExisting, false);
    await ctx.services.memories.idle();
    const done = await client.isTranslationMemoryJobComplete(exp.jobId, 10_000);
    assert.equal(done.operation, 'export');
    assert.ok(done.results[0]?.downloadUrl);
    const out = join(dir, 'printers.tmx');
    await client.downloadTranslationMemoryExport(done, out);
    assert.match(readFileSync(out, 'utf8'), /<seg>Reinicie el ordenador antes de instalar la actualización\.<\/seg>/);
    assert.equal((await client.createTranslationMemoryExport(memoryId)).reusedExisting, true);

    const results = await client.translateText(['The printer is out of ink.', 'The dog sleeps.'], 'en', 'es', { translationMemory: memory, translationMemoryThreshold: 70 });
    assert.equal(results[0]!.text, 'La impresora no tiene papel.');
    assert.match(results[1]!.text, /perro/);
    const strict = await client.translateText('The printer is out of ink.', 'en', 'es', { translationMemory: memoryId, translationMemoryThreshold: 100 });
    assert.notEqual(strict.text, 'La impresora no tiene papel.');
    await assert.rejects(client.translateText('Hello.', 'en', 'de', { translationMemory: memoryId }), (e: Error) => e instanceof deepl.DeepLError && /does not support the target language/.test(e.message));

    await client.deleteTranslationMemory(memory);
    await assert.rejects(client.getTranslationMemory(memoryId), (e: Error) => e instanceof deepl.DeepLError && /Not found/.test(e.message));
    assert.ok(!(await client.listTranslationMemories()).some((m) => m.translationMemoryId === memoryId));
    await assert.rejects(client.translateText('Hello.', 'en', 'es', { translationMemory: memoryId }), (e: Error) => e instanceof deepl.DeepLError && /Not found/.test(e.message));
    await assert.rejects(client.getTranslationMemoryJob('00000000-0000-4000-8000-000000000000'), (e: Error) => e instanceof deepl.DeepLError && /Not found/.test(e.message));
  });

  it('a failed import surfaces its error message', async () => {
    const bad = Buffer.from('<tmx version="1.4"><header srclang="xx"/><body></body></tmx>');
    const created = await client.createTranslationMemoryImport('bad.tmx', bad.length);
    await client.uploadTranslationMemoryFile(created.uploadUrl, bad);
    await ctx.services.memories.idle();
    const job = await client.getTranslationMemoryJob(created.jobId);
    assert.equal(job.results[0]?.status, 'failed');
    assert.ok(job.results[0]?.errorMessage, JSON.stringify(job));
    await assert.rejects(client.isTranslationMemoryJobComplete(created.jobId), (e: Error) => e instanceof deepl.DeepLError && e.message === job.results[0]!.errorMessage);
  });
});

describe('deepl-node translateText options against Tolk', () => {
  it('arrays, detected source language, billed characters, context, split sentences, preserve formatting, model type', async () => {
    const [a, b] = await client.translateText(['The house is big.', 'The dog sleeps in the garden.'], null, 'es');
    assert.match(a!.text, /casa/);
    assert.match(b!.text, /perro/);
    assert.equal(a!.detectedSourceLang, 'en');
    assert.equal(a!.billedCharacters, 'The house is big.'.length);
    assert.equal(b!.billedCharacters, 'The dog sleeps in the garden.'.length);
    assert.equal(a!.modelTypeUsed, undefined, 'model_type_used only when model_type was sent');

    const withContext = await client.translateText('The house is big.', 'en', 'es', { context: 'A text about real estate.' });
    assert.match(withContext.text, /casa/);
    assert.equal(withContext.billedCharacters, 'The house is big.'.length, 'context is not billed');

    const twoLines = 'The house is big.\nThe dog sleeps.';
    const off = await client.translateText(twoLines, 'en', 'es', { splitSentences: 'off' });
    const nonewlines = await client.translateText(twoLines, 'en', 'es', { splitSentences: 'nonewlines' });
    const on = await client.translateText(twoLines, 'en', 'es', { splitSentences: 'on' });
    for (const r of [off, nonewlines, on]) assert.match(r.text, /casa[\s\S]*perro/);
    assert.match(on.text, /\n/);
    await assert.rejects(client.translateText('x', 'en', 'es', { splitSentences: 'sometimes' as deepl.SentenceSplittingMode }), (e: Error) => /Value for 'split_sentences' not supported/.test(e.message));

    const preserved = await client.translateText('the house is big', 'en', 'es', { preserveFormatting: true });
    assert.match(preserved.text, /^la casa/, preserved.text);

    const quality = await client.translateText('The house is big.', 'en', 'es', { modelType: 'quality_optimized' });
    assert.match(quality.text, /casa/);
    assert.equal(quality.modelTypeUsed, 'quality_optimized');
    assert.equal((await client.translateText('The house is big.', 'en', 'es', { modelType: 'latency_optimized' })).modelTypeUsed, 'latency_optimized');
    await assert.rejects(client.translateText('x', 'en', 'es', { modelType: 'fastest' as deepl.ModelType }), (e: Error) => /Value for 'model_type' not supported/.test(e.message));
  });

  it('formality: prefer_* falls back quietly where unsupported, more/less are refused there and reach a model that has it', async () => {
    const spanish = (await client.getTargetLanguages()).find((l) => l.code === 'es');
    assert.equal(spanish?.supportsFormality, false);
    const prefer = await client.translateText('The house is big.', 'en', 'es', { formality: 'prefer_more' });
    assert.match(prefer.text, /casa/);
    assert.match((await client.translateText('The house is big.', 'en', 'es', { formality: 'prefer_less' })).text, /casa/);
    await assert.rejects(client.translateText('The house is big.', 'en', 'es', { formality: 'more' }), (e: Error) => e instanceof deepl.DeepLError && /formality/.test(e.message));
    const german = await client.translateText('How are you?', 'en', 'de', { formality: 'less' });
    assert.match(german.text, /How are you\?/);
    assert.match(llm.requests.at(-1)!.system, /informal/i);
  });

  it('tag handling: xml with ignore/splitting/non-splitting tags, html with outline detection, tag handling versions', async () => {
    const xml = await client.translateText('<p>The dog sleeps. <code>The house is big.</code></p>', 'en', 'es', { tagHandling: 'xml', ignoreTags: ['code'] });
    assert.match(xml.text, /^<p>.*perro.*<code>The house is big\.<\/code><\/p>$/);
    const split = await client.translateText('<doc><t>The house is big</t><t>The dog sleeps</t></doc>', 'en', 'es', {
      tagHandling: 'xml',
      splittingTags: 't',
      nonSplittingTags: ['b'],
      outlineDetection: false,
    });
    assert.match(split.text, /^<doc><t>[^<]*casa[^<]*<\/t><t>[^<]*perro[^<]*<\/t><\/doc>$/);
    const html = await client.translateText('<p>The <b>red</b> car.</p><script>var house = 1;</script>', 'en', 'es', { tagHandling: 'html', tagHandlingVersion: 'v2' });
    assert.match(html.text, /<b>rojo<\/b>/);
    assert.match(html.text, /<script>var house = 1;<\/script>/);
    const v1 = await client.translateText('The <b>red</b> car.', 'en', 'es', { tagHandling: 'xml', tagHandlingVersion: 'v1' });
    assert.match(v1.text, /<b>rojo<\/b>/);
    await assert.rejects(client.translateText('x', 'en', 'es', { tagHandling: 'xml', tagHandlingVersion: 'v9' as deepl.TagHandlingVersion }), (e: Error) => /tag_handling_version/.test(e.message));
  });

  it('custom instructions need a language model: refused on Apertium, sent to the model for en→de', async () => {
    await assert.rejects(client.translateText('The house is big.', 'en', 'es', { customInstructions: ['Use formal language.'] }), (e: Error) => e instanceof deepl.DeepLError && /custom_instructions|[Cc]ustom instructions/.test(e.message));
    const german = await client.translateText('The house is big.', 'en', 'de', { customInstructions: ['Say Haus, never Gebäude.', 'Be brief.'] });
    assert.match(german.text, /The house is big\./);
    assert.match(llm.requests.at(-1)!.system, /Say Haus, never Gebäude\./);
    assert.match(llm.requests.at(-1)!.system, /Be brief\./);
  });

  it('a multilingual glossary object, glossaryIds and extraRequestParameters', async () => {
    const glossary = await client.createMultilingualGlossary('Pets', [{ sourceLangCode: 'en', targetLangCode: 'es', entries: new deepl.GlossaryEntries({ entries: { dog: 'chucho' } }) }]);
    const plain = await client.translateText('The dog sleeps.', 'en', 'es');
    assert.match(plain.text, /perro/);
    assert.match((await client.translateText('The dog sleeps.', 'en', 'es', { glossary })).text, /chucho/);
    assert.match((await client.translateText('The dog sleeps.', 'en', 'es', { glossaryIds: [glossary] })).text, /chucho/);
    // Parameters the client has no option for travel as they are.
    assert.match((await client.translateText('The dog sleeps.', 'en', 'es', { extraRequestParameters: { glossary_id: glossary.glossaryId } })).text, /chucho/);
    await assert.rejects(client.translateText('The dog sleeps.', 'en', 'es', { extraRequestParameters: { target_lang: 'XX' } }), (e: Error) => /Value for 'target_lang' not supported/.test(e.message));
    await client.deleteMultilingualGlossary(glossary);
    await assert.rejects(client.translateText('The dog sleeps.', 'en', 'es', { glossary }), (e: Error) => e instanceof deepl.DeepLError && /Not found/.test(e.message));
  });
});

describe('deepl-node low-level document methods and CSV glossaries against Tolk', () => {
  it('uploadDocument, getDocumentStatus, isDocumentTranslationComplete, downloadDocument', async () => {
    const input = join(dir, 'note.txt');
    writeFileSync(input, 'The house is big.\nThe dog sleeps.\n');
    const handle = await client.uploadDocument(input, 'en', 'es');
    assert.match(handle.documentId, /^[0-9A-Za-z]+$/);
    assert.ok(handle.documentKey);
    const status = await client.getDocumentStatus(handle);
    assert.ok(status.ok());
    const polled = polls.get(handle.documentId.toUpperCase()) ?? 0;
    const complete = await client.isDocumentTranslationComplete(handle);
    assert.ok(complete.status.done());
    assert.equal(polls.get(handle.documentId.toUpperCase()), polled + 1, 'done at the first poll (no 5 s sleep and second poll)');
    assert.equal(complete.status.billedCharacters, 'The house is big.'.length + 'The dog sleeps.'.length);
    const output = join(dir, 'note.es.txt');
    await client.downloadDocument(handle, output);
    assert.match(readFileSync(output, 'utf8'), /casa[\s\S]*perro/);
    // Downloaded once: the handle is gone.
    await assert.rejects(client.getDocumentStatus(handle), deepl.DeepLError);

    const buffered = await client.uploadDocument(Buffer.from('The car is red.'), null, 'es', { filename: 'car.txt' });
    await client.isDocumentTranslationComplete(buffered);
    const out2 = join(dir, 'car.es.txt');
    await client.downloadDocument(buffered, out2);
    assert.match(readFileSync(out2, 'utf8'), /coche|carro/);
    await assert.rejects(client.uploadDocument(Buffer.from('x'), 'en', 'es', { filename: 'x.unknown' }), (e: Error) => /Invalid file data/.test(e.message));
  });

  it('createMultilingualGlossaryWithCsv, updateMultilingualGlossaryDictionaryWithCsv (merge), replaceMultilingualGlossaryDictionaryWithCsv', async () => {
    const g = await client.createMultilingualGlossaryWithCsv('CSV', 'en', 'es', 'dog,chucho\n"cat, big",gatazo');
    assert.equal(g.name, 'CSV');
    assert.deepEqual(g.dictionaries.map((d) => [d.sourceLangCode, d.targetLangCode, d.entryCount]), [['en', 'es', 2]]);
    const merged = await client.updateMultilingualGlossaryDictionaryWithCsv(g, 'en', 'es', 'house,casona\ndog,perrito');
    assert.equal(merged.dictionaries[0]!.entryCount, 3);
    assert.deepEqual((await client.getMultilingualGlossaryDictionaryEntries(g, 'en', 'es')).entries.entries(), { dog: 'perrito', 'cat, big': 'gatazo', house: 'casona' });
    assert.match((await client.translateText('The house is big.', 'en', 'es', { glossary: g })).text, /casona/);
    const added = await client.updateMultilingualGlossaryDictionaryWithCsv(g.glossaryId, 'es', 'en', 'perro,hound');
    assert.equal(added.dictionaries.length, 2);
    const replaced = await client.replaceMultilingualGlossaryDictionaryWithCsv(g, 'en', 'es', 'car,carro');
    assert.deepEqual([replaced.sourceLangCode, replaced.targetLangCode, replaced.entryCount], ['en', 'es', 1]);
    assert.deepEqual((await client.getMultilingualGlossaryDictionaryEntries(g, 'en', 'es')).entries.entries(), { car: 'carro' });
    await assert.rejects(client.createMultilingualGlossaryWithCsv('Bad', 'en', 'es', 'dog,perro\ndog,can'), (e: Error) => e instanceof deepl.DeepLError && /Bad request/.test(e.message));
    await client.deleteMultilingualGlossary(g);
    await assert.rejects(client.getMultilingualGlossary(g.glossaryId), deepl.GlossaryNotFoundError);
  });
});

// The translate-service entry point: glossary, TM and style rule resolved from the store and applied around real
// Apertium calls, with the reference's errors for missing resources.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { readFileSync } from 'node:fs';
import { createAccount, createTestApp, testEngines, type TestContext, type TestAccount } from '../helpers/harness.js';
import type { CustomizationRequest } from '../../src/customization/index.js';

let ctx: TestContext;
let acc: TestAccount;
before(async () => {
  ctx = await createTestApp({ engines: testEngines(['en-es']) });
  acc = await createAccount(ctx);
});
after(async () => ctx.close());

const base: CustomizationRequest = { sourceLang: 'en', targetLang: 'es', glossaryIds: [], styleId: undefined, translationMemoryId: undefined, translationMemoryThreshold: undefined, customInstructions: [] };
const engine = (segments: string[]) => ctx.services.router.translate('en', 'es', segments, {});

describe('TranslateCustomization', () => {
  it('no customization: no hook', async () => {
    assert.equal(await ctx.services.customization.prepare(acc.accountId, base), undefined);
  });

  it('glossary + translation memory + style rule change real Apertium output', async () => {
    const g = await ctx.services.glossaries.create(acc.accountId, { name: 'Cars', dictionaries: [{ sourceLang: 'en', targetLang: 'es', entries: 'car\tautomóvil', format: 'tsv' }] });
    const style = await ctx.services.styleRules.create(acc.accountId, { name: 'S', language: 'es', configuredRules: { numbers: { decimal_separator: 'use_comma_as_decimal_separator' } }, customInstructions: [] });
    const job = await ctx.services.memories.startImport(acc.accountId, { displayName: 'TM', contentType: 'application/xml' });
    await ctx.services.memories.receiveUpload(acc.accountId, job.jobId, Readable.from([readFileSync(new URL('../../../test/fixtures/customization/small.tmx', import.meta.url))]));
    await ctx.services.memories.idle();
    const memoryId = (await ctx.services.memories.list(acc.accountId, 0, 10)).memories[0]!.id;
    const hook = await ctx.services.customization.prepare(acc.accountId, { ...base, glossaryIds: [g.id], styleId: style.id, translationMemoryId: memoryId });
    assert.ok(hook);
    const segments = ['I bought a new car that costs 3.5 million.', 'The printer is out of paper.', 'Restart the computer before installing the new update.'];
    const plain = await engine(segments);
    const out = await hook.run('en', 'es', segments, engine);
    assert.doesNotMatch(plain[0]!, /automóvil/);
    assert.match(out[0]!, /automóvil/);
    assert.match(out[0]!, /3,5/);
    assert.equal(out[1], 'La impresora no tiene papel.');
    assert.equal(out[2], 'Reinicie el ordenador antes de instalar la actualización.');
  });

  it('errors: missing TM (404), TM without the target, style language mismatch, custom instructions refused', async () => {
    const none = '00000000-0000-0000-0000-000000000000';
    await assert.rejects(ctx.services.customization.prepare(acc.accountId, { ...base, translationMemoryId: none }), (e: Error & { code?: string }) => e.code === 'not_found');
    const memoryId = (await ctx.services.memories.list(acc.accountId, 0, 10)).memories[0]!.id;
    await assert.rejects(ctx.services.customization.prepare(acc.accountId, { ...base, targetLang: 'de', translationMemoryId: memoryId }), /does not support the target language de/);
    const style = await ctx.services.styleRules.create(acc.accountId, { name: 'S', language: 'de', configuredRules: {}, customInstructions: [] });
    await assert.rejects(ctx.services.customization.prepare(acc.accountId, { ...base, styleId: style.id }), /Style rule language does not match the translate request target language/);
    await assert.rejects(ctx.services.customization.prepare(acc.accountId, { ...base, customInstructions: ['Be formal'] }), /language-model engine/);
    await assert.rejects(ctx.services.customization.prepare(acc.accountId, { ...base, glossaryIds: [none] }), /Glossary not found/);
  });

  it('a capable engine (language model) gets glossary terms, LLM-only style rules and instructions natively', async () => {
    const g = await ctx.services.glossaries.create(acc.accountId, { name: 'N', dictionaries: [{ sourceLang: 'en', targetLang: 'es', entries: 'car\tautomóvil\nboat\tbarca', format: 'tsv' }] });
    const style = await ctx.services.styleRules.create(acc.accountId, {
      name: 'L', language: 'es',
      configuredRules: { style_and_tone: { formality: 'use_formal_tone' }, punctuation: { exclamation_marks: 'do_not_use' } },
      customInstructions: [{ label: 'x', prompt: 'Keep it short.' }],
    });
    const hook = await ctx.services.customization.prepare(acc.accountId, { ...base, glossaryIds: [g.id], styleId: style.id, customInstructions: ['Be polite.'] }, { glossary: true, styleRules: true, customInstructions: true });
    let seen: unknown;
    const out = await hook!.run('en', 'es', ['My car is fast!'], async (segments, extras) => {
      seen = { segments, extras };
      return ['¡Mi automóvil es rápido!'];
    });
    assert.deepEqual(seen, {
      segments: ['My car is fast!'],
      extras: { styleRules: ['style and tone, formality: use formal tone'], customInstructions: ['Be polite.', 'Keep it short.'], glossary: [{ source: 'car', target: 'automóvil' }] },
    });
    assert.equal(out[0], 'Mi automóvil es rápido.'); // the deterministic rule still applies after the engine
  });
});

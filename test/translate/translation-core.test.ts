// The translation core's own API, without HTTP: translateText meters a job, prepare/translateSegments serve callers
// that own their segmentation and bill themselves, and the policies moved out of the composition root.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthContext } from '../../src/accounts/accounts-service.js';
import { WorkerLanguageDetector } from '../../src/detect/worker-language-detector.js';
import { EngineError, type EngineTranslateOptions, type TranslationEngine } from '../../src/engines/engine.js';
import { ServiceError } from '../../src/lib/errors.js';
import { engineErrorToServiceError } from '../../src/translate/engine-errors.js';
import { buildCatalogue } from '../../src/translate/language-catalogue.js';
import { sourceDetector, type SourceDetectionPolicy } from '../../src/translate/source-detection.js';
import { NO_CUSTOMIZATION, textOptions, type TranslateJob, type TranslationSpec } from '../../src/translate/translate-job.js';
import { MAX_CALL_CHARS, MAX_SEGMENT_CHARS } from '../../src/translate/translate-service.js';
import { createAccount, createTestApp, testEngines, type TestContext } from '../helpers/harness.js';

let ctx: TestContext;
let caller: AuthContext;

const enEs: TranslationSpec = { sourceLang: 'en', targetLang: 'es', options: textOptions(), customization: NO_CUSTOMIZATION };
const job = (texts: string[], spec: Partial<TranslationSpec> = {}): TranslateJob => ({ ...enEs, ...spec, texts, caller, reportingTag: 'core-test' });
const usedCharacters = async () => (await ctx.services.usage.summary(caller)).keyCharacters;

/** What reached the engine: the real Apertium engine, with its calls written down. */
const engineCalls: { segments: string[]; options: EngineTranslateOptions }[] = [];
function recorded(engine: TranslationEngine): TranslationEngine {
  return {
    name: engine.name,
    features: engine.features,
    start: () => engine.start(),
    pairs: () => engine.pairs(),
    translate: (pair, segments, options) => {
      engineCalls.push({ segments, options });
      return engine.translate(pair, segments, options);
    },
    close: () => engine.close(),
  };
}

before(async () => {
  ctx = await createTestApp({ engines: testEngines().map(recorded) });
  const account = await createAccount(ctx);
  caller = (await ctx.services.accounts.authenticate(account.key))!;
});
after(() => ctx.close());

describe('TranslationCore.translateText', () => {
  it('by default (TOLK_DETECTOR_LOAD=first-use), starts the language detector on the first text without a source, not at start, and detects that text', async () => {
    const detector = ctx.services.detector;
    assert.ok(detector instanceof WorkerLanguageDetector);
    await ctx.services.translate.translateText(job(['The dog sleeps.']));
    assert.equal(detector.started, false, 'a request naming its source loaded the detector');
    const outcome = await ctx.services.translate.translateText(job(['The weather is nice today and the dog sleeps in the garden.'], { sourceLang: undefined }));
    assert.equal(detector.started, true);
    assert.equal(outcome.results[0]!.detectedSourceLanguage, 'EN');
    assert.match(outcome.results[0]!.text, /perro/i);
  });

  it('translates and charges the key the billed characters', async () => {
    const before = await usedCharacters();
    const outcome = await ctx.services.translate.translateText(job(['The dog sleeps.', 'The house is big.']));
    assert.match(outcome.results[0]!.text, /perro/i);
    assert.match(outcome.results[1]!.text, /casa/i);
    assert.equal(outcome.results[0]!.detectedSourceLanguage, 'EN');
    assert.equal(outcome.billedCharacters, 'The dog sleeps.'.length + 'The house is big.'.length);
    assert.equal((await usedCharacters()) - before, outcome.billedCharacters);
  });

  it('bills the text of tagged input, not its tags, and keeps the tags', async () => {
    const before = await usedCharacters();
    const text = '<p>The <b>dog</b> sleeps.</p>';
    const outcome = await ctx.services.translate.translateText(job([text], { options: textOptions({ tagHandling: 'xml' }) }));
    assert.match(outcome.results[0]!.text, /^<p>.*<b>.*<\/b>.*<\/p>$/u);
    assert.equal(outcome.results[0]!.billedCharacters, 'The dog sleeps.'.length);
    assert.equal(outcome.results[0]!.tagHandlingVersion, 'v2');
    assert.equal((await usedCharacters()) - before, 'The dog sleeps.'.length);
  });

  it('refuses an unsupported pair before billing anything', async () => {
    const before = await usedCharacters();
    await assert.rejects(
      ctx.services.translate.translateText(job(['Hallo'], { sourceLang: 'de' })),
      (err: unknown) => err instanceof ServiceError && err.code === 'invalid_request' && /'DE' to 'ES' is not supported/.test(err.message),
    );
    assert.equal(await usedCharacters(), before);
  });
});

describe('TranslationCore.prepare and translateSegments', () => {
  it('translates segments in order through a prepared spec, charging nothing', async () => {
    const before = await usedCharacters();
    const prepared = await ctx.services.translate.prepare(caller.account.id, enEs);
    const out = await ctx.services.translate.translateSegments(prepared, ['The dog sleeps.', 'The house is big.', 'The dog sleeps.']);
    assert.equal(out.length, 3);
    assert.match(out[0]!, /perro/i);
    assert.match(out[1]!, /casa/i);
    assert.equal(out[2], out[0]);
    assert.equal(await usedCharacters(), before);
  });

  it('applies the sentence splitting asked for per call, and queues the work under the account', async () => {
    const prepared = await ctx.services.translate.prepare(caller.account.id, { ...enEs, options: textOptions({ splitSentences: '0' }) });
    const text = 'The dog sleeps.\nThe house is big.';
    engineCalls.length = 0;
    await ctx.services.translate.translateSegments(prepared, [text]);
    assert.deepEqual(engineCalls.map((c) => c.segments), [[text]]);
    engineCalls.length = 0;
    const [split] = await ctx.services.translate.translateSegments(prepared, [text], { splitSentences: '1' });
    assert.deepEqual(engineCalls.map((c) => c.segments), [['The dog sleeps.', 'The house is big.']]);
    assert.equal(engineCalls[0]!.options.requester, caller.account.id);
    assert.equal(split!.split('\n').length, 2);
  });

  it('translates a text without sentence breaks in bounded engine calls, whatever split_sentences', async () => {
    // one line of ~48 kB with no sentence end (a document of megabytes goes the same way, in more calls)
    const text = Array.from({ length: 2400 }, (_, i) => `the house ${i} and`).join(' ');
    for (const splitSentences of ['0', '1'] as const) {
      const prepared = await ctx.services.translate.prepare(caller.account.id, { ...enEs, options: textOptions({ splitSentences }) });
      engineCalls.length = 0;
      const [out] = await ctx.services.translate.translateSegments(prepared, [text]);
      assert.ok(engineCalls.length >= 3, `${engineCalls.length} engine calls`);
      for (const call of engineCalls) {
        assert.ok(call.segments.join('').length <= MAX_CALL_CHARS, 'a call stays within its bound');
        for (const segment of call.segments) assert.ok(segment.length <= MAX_SEGMENT_CHARS);
      }
      assert.equal(out!.match(/casa/giu)?.length, 2400, splitSentences);
      assert.match(out!, /casa 0 y .* casa 2399 y$/iu);
      assert.doesNotMatch(out!, /\S {2,}\S|\d(y|casa)/u, 'pieces joined with their blanks');
    }
  });

  it('validates the pair and the resources at prepare time with the text messages', async () => {
    await assert.rejects(ctx.services.translate.prepare(caller.account.id, { ...enEs, sourceLang: 'de' }), /'DE' to 'ES' is not supported/);
    await assert.rejects(
      ctx.services.translate.prepare(caller.account.id, { ...enEs, customization: { ...NO_CUSTOMIZATION, glossaryIds: ['00000000-0000-4000-8000-000000000000'] } }),
      (err: unknown) => err instanceof ServiceError && err.code === 'not_found',
    );
  });

  it('needs a source language to translate segments', async () => {
    const prepared = await ctx.services.translate.prepare(caller.account.id, { ...enEs, sourceLang: undefined });
    assert.equal(prepared.source, undefined);
    await assert.rejects(ctx.services.translate.translateSegments(prepared, ['The dog sleeps.']), /source language/);
  });

  it('detects the source of a sample, and refuses a detected language no engine translates', async () => {
    assert.equal(await ctx.services.translate.detectSource('The weather is nice today and the dog sleeps in the garden.', 'es'), 'en');
    await assert.rejects(
      ctx.services.translate.detectSource('Das Wetter ist heute schön und der Hund schläft im Garten.', 'es'),
      /Detected source language 'DE' cannot be translated to 'ES'/,
    );
  });

  it('translates an undecidable word from the default source through a pivot, and labels it so', async () => {
    // "Test" is a word of every installed dictionary ("Hola", once undecidable, is Spanish by its lexicons now)
    const outcome = await ctx.services.translate.translateText(job(['Test'], { sourceLang: undefined, targetLang: 'pt' }));
    const [pivoted] = await ctx.services.translate.pairs.translate('en', 'pt', ['Test'], {});
    assert.deepEqual(outcome.results.map((r) => [r.detectedSourceLanguage, r.text]), [['EN', pivoted]]);
  });

  it('never names an unsure guess: a word whose likely languages no engine translates asks for source_lang', async () => {
    // unsure between Czech and Slovak, known to no installed lexicon; the default source is the target; no engine
    // translates cs or sk
    await assert.rejects(
      ctx.services.translate.detectSource('Děkuji', 'en'),
      (err: Error) => err.message === 'The source language could not be detected with confidence; specify source_lang.',
    );
    // Portuguese's dictionaries alone know it: detected, and refused as what it is (es-pt goes one way only here)
    await assert.rejects(
      ctx.services.translate.detectSource('Obrigado', 'en'),
      (err: Error) => err.message === "Detected source language 'PT' cannot be translated to 'EN' by the installed engines.",
    );
  });

  it('names the target, not a guessed source, when no engine translates into the target', async () => {
    for (const text of ['proton beam', 'The weather is nice today and the dog sleeps in the garden.']) {
      await assert.rejects(ctx.services.translate.detectSource(text, 'ko'), (err: Error) => err.message === "Target language 'KO' is not supported by the installed engines.");
    }
  });
});

describe('translation policies', () => {
  it('maps engine failures to API errors and passes other errors through', () => {
    const timeout = engineErrorToServiceError(new EngineError('timeout', 'slow'));
    assert.ok(timeout instanceof ServiceError && timeout.code === 'engine_timeout' && timeout.details?.retryAfterSeconds === 1);
    const busy = engineErrorToServiceError(new EngineError('overloaded', 'full'));
    assert.ok(busy instanceof ServiceError && busy.code === 'overloaded');
    const pair = engineErrorToServiceError(new EngineError('unsupported_pair', 'no engine for xx'));
    assert.ok(pair instanceof ServiceError && pair.code === 'invalid_request' && pair.message === 'no engine for xx');
    const other = new Error('not an engine error');
    assert.equal(engineErrorToServiceError(other), other);
  });

  it('lists a bare English target under both variant names, with its formality', () => {
    const catalogue = buildCatalogue([
      { source: 'es', target: 'en', formality: false, kind: 'direct', via: [], engines: ['apertium'] },
      { source: 'en', target: 'es', formality: true, kind: 'direct', via: [], engines: ['apertium'] },
    ]);
    assert.deepEqual(catalogue.sources, ['en', 'es']);
    assert.deepEqual(catalogue.targets.map((t) => t.code), ['en', 'en-gb', 'en-us', 'es']);
    assert.equal(catalogue.targets.find((t) => t.code === 'es')!.formality, true);
  });

  it('unsure detection: the default source when it reaches the target (pivots count), else the likeliest candidate', async () => {
    const unsure = (...candidates: string[]) => ({
      detect: async () => ({ status: 'insufficient_confidence' as const, rawLanguage: 'nl', confidence: 0.2, candidates }),
    });
    const sure = { detect: async () => ({ status: 'success' as const, language: 'fr', rawLanguage: 'fr', confidence: 0.9 }) };
    // en→es directly, en→fr through es, de→en; nothing into ko
    const routes = new Set(['en>es', 'en>fr', 'es>fr', 'de>en', 'en>de']);
    const canTranslate = (source: string, target: string) => routes.has(`${source}>${target.split('-')[0]}`);
    const servesTarget = (target: string) => [...routes].some((route) => route.endsWith(`>${target.split('-')[0]}`));
    const policy = (detector: SourceDetectionPolicy['detector'], defaultSourceLang?: string) => sourceDetector({ detector, canTranslate, servesTarget, defaultSourceLang });
    assert.deepEqual(await policy(unsure('sk', 'es'), 'en').detectSource('Hola', 'fr'), { source: 'en', detected: false });
    assert.deepEqual(await policy(sure, 'en').detectSource('Bonjour', 'es'), { source: 'fr', detected: true });
    // the default is the target: the likeliest candidate that reaches it, never the unsure guess (nl)
    assert.deepEqual(await policy(unsure('de', 'cs'), 'en').detectSource('Protonenstrahl', 'en-us'), { source: 'de', detected: false });
    // the likeliest language is the target itself: nothing to translate, the default source is not forced on it
    assert.deepEqual(await policy(unsure('de', 'cs'), 'en').detectSource('Protonenstrahl', 'de'), { source: 'de', detected: false });
    assert.deepEqual(await policy(unsure('es', 'pt')).detectSource('Hola', 'fr'), { source: 'es', detected: false });
    // nothing usable: no source, and not a detection
    assert.deepEqual(await policy(unsure('sk', 'cs'), 'en').detectSource('Ahoj', 'ko'), { source: undefined, detected: false });
    // the likeliest language is a target nothing serves (ko): not taken as the source, so the request is refused as such
    assert.deepEqual(await policy(unsure('ko', 'en'), 'en').detectSource('proton beam', 'ko'), { source: undefined, detected: false });
  });
});

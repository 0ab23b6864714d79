// Spoken terms and glossaries in voice sessions, end to end over a real WebSocket: flite speech with product names
// PocketSphinx's language model does not know is transcribed with them only when the session names a spoken terms
// collection; a glossary changes the Spanish translation of concluded segments as it does for /v2/translate.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { authHeaders, createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';
import { concludedText, connectVoice, synthesize, wordErrorRate, type Msg } from '../voice/voice-helpers.js';

const PCM = 'audio/pcm;encoding=s16le;rate=16000';
const WITH_TERMS = 'We store the metrics in Grafana and the tickets in Zendesk.';
const WITHOUT_TERMS = 'The weather is nice today. I would like to visit the old city with my friends.';

describe('voice sessions with spoken terms and glossaries', () => {
  let ctx: TestContext;
  let account: TestAccount;
  let base: string;
  let termsId: string;

  before(async () => {
    ctx = await createTestApp();
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    base = `ws://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    account = await createAccount(ctx);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v3/spoken-terms',
      headers: authHeaders(account),
      payload: { name: 'Tools', term_lists: [{ lang: 'en', entries: 'Grafana\nZendesk' }, { lang: 'de', entries: 'Schnittstelle' }] },
    });
    assert.equal(res.statusCode, 201, res.body);
    termsId = res.json().spoken_terms_id;
  });
  after(async () => ctx.close());

  const post = (body: Record<string, unknown>, who: TestAccount = account) =>
    ctx.app.inject({ method: 'POST', url: '/v3/voice/realtime', headers: authHeaders(who), payload: body });

  async function run(body: Record<string, unknown>, text: string): Promise<Msg[]> {
    const res = await post({ source_media_content_type: PCM, source_language: 'en', ...body });
    assert.equal(res.statusCode, 200, res.body);
    const client = await connectVoice(`${base}/v3/voice/realtime/connect?token=${encodeURIComponent(res.json().token)}`);
    // 100 ms chunks at real-time pace.
    await client.stream(synthesize(text), 3200, 100);
    await client.closed;
    const kinds = client.messages.map((m) => Object.keys(m)[0]);
    assert.equal(kinds.at(-1), 'end_of_stream', JSON.stringify(client.messages.find((m) => m.error)));
    return client.messages;
  }

  it('checks spoken_terms_id and glossary_id before issuing a token', async () => {
    const unknown = await post({ source_media_content_type: PCM, spoken_terms_id: '00000000-0000-4000-8000-000000000000' });
    assert.equal(unknown.statusCode, 404, unknown.body);
    assert.equal(unknown.json().message, 'Spoken terms not found');
    const other = await createAccount(ctx);
    assert.equal((await post({ source_media_content_type: PCM, spoken_terms_id: termsId }, other)).statusCode, 404);
    const germanOnly = await ctx.app.inject({
      method: 'POST',
      url: '/v3/spoken-terms',
      headers: authHeaders(account),
      payload: { name: 'German', term_lists: [{ lang: 'de', entries: 'Schnittstelle' }] },
    });
    const noEnglish = await post({ source_media_content_type: PCM, spoken_terms_id: germanOnly.json().spoken_terms_id });
    assert.equal(noEnglish.statusCode, 400);
    assert.match(noEnglish.json().message, /no terms for the source language 'en'/);

    const missing = await post({ source_media_content_type: PCM, target_languages: ['es'], glossary_id: '00000000-0000-4000-8000-000000000000' });
    assert.equal(missing.statusCode, 404, missing.body);
    assert.equal(missing.json().message, 'Glossary not found');
    const deOnly = await ctx.app.inject({
      method: 'POST',
      url: '/v3/glossaries',
      headers: authHeaders(account),
      payload: { name: 'de', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'weather\tWetter', entries_format: 'tsv' }] },
    });
    const wrongPair = await post({ source_media_content_type: PCM, target_languages: ['es'], glossary_id: deOnly.json().glossary_id });
    assert.equal(wrongPair.statusCode, 400);
    assert.match(wrongPair.json().message, /No dictionary found for language pair en-es in glossary /);
    const noTarget = await post({ source_media_content_type: PCM, glossary_id: deOnly.json().glossary_id });
    assert.equal(noTarget.statusCode, 400);
    assert.match(noTarget.json().message, /glossary_id/);
  });

  it('transcribes product names right only with the spoken terms, without false alarms elsewhere', async () => {
    const plain = concludedText(await run({}, WITH_TERMS), 'source');
    const biased = concludedText(await run({ spoken_terms_id: termsId }, WITH_TERMS), 'source');
    console.log(`# without spoken terms: "${plain}"\n# with spoken terms:    "${biased}"`);
    assert.doesNotMatch(plain, /grafana|zendesk/i);
    assert.match(biased, /\bGrafana\b/);
    assert.match(biased, /\bZendesk\b/);
    assert.ok(wordErrorRate(WITH_TERMS, biased) < wordErrorRate(WITH_TERMS, plain), `${biased} vs ${plain}`);

    const other = concludedText(await run({ spoken_terms_id: termsId }, WITHOUT_TERMS), 'source');
    assert.doesNotMatch(other, /Grafana|Zendesk/, other);
    assert.ok(wordErrorRate(WITHOUT_TERMS, other) <= 0.1, other);
  });

  it('applies the glossary to the Spanish translation of concluded segments', async () => {
    const glossary = await ctx.app.inject({
      method: 'POST',
      url: '/v3/glossaries',
      headers: authHeaders(account),
      payload: { name: 'Voice', dictionaries: [{ source_lang: 'en', target_lang: 'es', entries: 'weather\tclima\nold city\tcasco antiguo', entries_format: 'tsv' }] },
    });
    assert.equal(glossary.statusCode, 201, glossary.body);
    const messages = await run({ target_languages: ['es'], glossary_id: glossary.json().glossary_id }, WITHOUT_TERMS);
    const source = concludedText(messages, 'source');
    const spanish = concludedText(messages, 'es');
    console.log(`# source: "${source}"\n# Spanish with glossary: "${spanish}"`);
    assert.match(source, /weather/);
    assert.match(spanish, /clima/);
    assert.match(spanish, /casco antiguo/);
    assert.doesNotMatch(spanish, /ZJQ/i);
    // The same segments through the engine alone give other words: the glossary made the difference.
    const plain = (await ctx.services.router.translate('en', 'es', [source], {})).join(' ');
    assert.doesNotMatch(plain, /clima|casco antiguo/, plain);
    assert.ok(messages.some((m) => m.end_of_target_transcript?.language === 'es'));
  });
});

// /v2/translate over HTTP (inject): JSON and form bodies, every parameter's validation, results, billing figures.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAccount, authHeaders, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';

let ctx: TestContext;
let pro: TestAccount;

before(async () => {
  ctx = await createTestApp();
  pro = await createAccount(ctx);
});
after(async () => ctx.close());

async function translateJson(body: unknown, headers: Record<string, string> = {}) {
  return ctx.app.inject({ method: 'POST', url: '/v2/translate', headers: { ...authHeaders(pro), ...headers }, payload: body as object });
}

async function translateForm(form: string) {
  return ctx.app.inject({
    method: 'POST',
    url: '/v2/translate',
    headers: { ...authHeaders(pro), 'content-type': 'application/x-www-form-urlencoded' },
    payload: form,
  });
}

describe('success', () => {
  it('translates English to Spanish with a JSON body', async () => {
    const res = await translateJson({ text: ['The house is big.'], target_lang: 'ES', source_lang: 'EN' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.translations.length, 1);
    assert.equal(body.translations[0].detected_source_language, 'EN');
    assert.match(body.translations[0].text, /casa/i);
    assert.equal(body.translations[0].billed_characters, undefined);
    assert.equal(body.translations[0].model_type_used, undefined);
    assert.match(res.headers['x-trace-id'] as string, /^[0-9a-f]{32}$/);
  });

  it('accepts a form body with repeated text and keeps request order', async () => {
    const res = await translateForm('text=The%20dog.&text=The%20cat.&text=Good%20morning.&target_lang=es&source_lang=en');
    assert.equal(res.statusCode, 200);
    const texts = res.json().translations.map((t: { text: string }) => t.text.toLowerCase());
    assert.equal(texts.length, 3);
    assert.match(texts[0], /perro/);
    assert.match(texts[1], /gato/);
    assert.match(texts[2], /buenos/);
  });

  it('detects the source language per text when source_lang is omitted', async () => {
    const res = await translateJson({
      text: ['The children are playing in the garden this afternoon.', 'Los niños juegan en el jardín esta tarde.'],
      target_lang: 'ES',
    });
    assert.equal(res.statusCode, 200);
    const [first, second] = res.json().translations;
    assert.equal(first.detected_source_language, 'EN');
    assert.match(first.text, /niños/);
    assert.equal(second.detected_source_language, 'ES');
    assert.equal(second.text, 'Los niños juegan en el jardín esta tarde.');
  });

  it('takes a single ambiguous word as English (the default source) when the target is not English', async () => {
    const res = await translateJson({ text: ['Hello'], target_lang: 'ES' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().translations[0].detected_source_language, 'EN');
    assert.match(res.json().translations[0].text, /hola/i);
  });

  it('reports billed characters in code points, per item and at top level', async () => {
    const text = 'Hello 😀 world';
    const res = await translateJson({ text: [text, 'Dog.'], target_lang: 'ES', source_lang: 'EN', show_billed_characters: true });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.translations[0].billed_characters, [...text].length);
    assert.equal(body.translations[0].billed_characters, 13);
    assert.equal(body.translations[1].billed_characters, 4);
    assert.equal(body.billed_characters, 17);
  });

  it('echoes model_type_used only when model_type was sent', async () => {
    const res = await translateJson({ text: ['Yes.'], target_lang: 'ES', source_lang: 'EN', model_type: 'prefer_quality_optimized' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().translations[0].model_type_used, 'quality_optimized');
  });

  it('translates through a pivot when no direct pair exists (en → pt via es)', async () => {
    const res = await translateJson({ text: ['The house is big.'], target_lang: 'PT-BR', source_lang: 'EN' });
    assert.equal(res.statusCode, 200);
    assert.match(res.json().translations[0].text, /casa/i);
  });

  it('split_sentences=1 translates line by line and keeps the newlines; whitespace is kept', async () => {
    const res = await translateJson({ text: ['  The dog.\n\nThe cat.  '], target_lang: 'ES', source_lang: 'EN', split_sentences: '1' });
    assert.equal(res.statusCode, 200);
    const text = res.json().translations[0].text as string;
    assert.match(text, /^ {2}\S/);
    assert.match(text, /\n\n/);
    assert.match(text, /perro[\s\S]*gato/i);
    assert.match(text, /\S {2}$/);
  });

  it('accepts split_sentences 0 and nonewlines', async () => {
    for (const split of ['0', 'nonewlines']) {
      const res = await translateJson({ text: ['The dog.\nThe cat.'], target_lang: 'ES', source_lang: 'EN', split_sentences: split });
      assert.equal(res.statusCode, 200, split);
      assert.match(res.json().translations[0].text, /perro[\s\S]*gato/i);
    }
  });

  it('preserve_formatting keeps a lower-case first letter', async () => {
    const res = await translateJson({ text: ['the house is big'], target_lang: 'ES', source_lang: 'EN', preserve_formatting: true });
    assert.equal(res.statusCode, 200);
    assert.match(res.json().translations[0].text, /^[a-zé]/);
  });

  it('prefer_more formality never fails on a target without formality', async () => {
    const res = await translateJson({ text: ['Hello.'], target_lang: 'ES', source_lang: 'EN', formality: 'prefer_more' });
    assert.equal(res.statusCode, 200);
  });

  it('ignores unknown parameters and the deprecated enable_beta_languages', async () => {
    const res = await translateJson({ text: ['Hello.'], target_lang: 'ES', source_lang: 'EN', whatever: 1, enable_beta_languages: true });
    assert.equal(res.statusCode, 200);
  });

  it('accepts DeepL-Auth-Key as an alias of Service-Auth-Key', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: authHeaders(pro, 'DeepL-Auth-Key'),
      payload: { text: ['Hello.'], target_lang: 'ES', source_lang: 'EN' },
    });
    assert.equal(res.statusCode, 200);
  });

  it('does not count context towards billed characters', async () => {
    const res = await translateJson({
      text: ['Bank.'],
      target_lang: 'ES',
      source_lang: 'EN',
      context: 'A long context about rivers and water.',
      show_billed_characters: true,
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().billed_characters, 5);
  });
});

describe('validation', () => {
  const cases: [string, unknown, string][] = [
    ['missing text', { target_lang: 'ES' }, "Parameter 'text' not specified"],
    ['empty text array', { text: [], target_lang: 'ES' }, "Parameter 'text' not specified"],
    ['missing target_lang', { text: ['Hi'] }, "Parameter 'target_lang' not specified"],
    ['bad target_lang', { text: ['Hi'], target_lang: 'XX' }, "Value for 'target_lang' not supported."],
    ['bad source_lang', { text: ['Hi'], target_lang: 'ES', source_lang: 'QQ' }, "Value for 'source_lang' not supported."],
    ['non-string text', { text: [1], target_lang: 'ES' }, "Value for 'text' not supported."],
    ['bad split_sentences', { text: ['Hi'], target_lang: 'ES', split_sentences: '2' }, "Value for 'split_sentences' not supported."],
    ['bad preserve_formatting', { text: ['Hi'], target_lang: 'ES', preserve_formatting: 'yes' }, "Value for 'preserve_formatting' not supported."],
    ['bad formality', { text: ['Hi'], target_lang: 'ES', formality: 'polite' }, "Value for 'formality' not supported."],
    ['bad model_type', { text: ['Hi'], target_lang: 'ES', model_type: 'fast' }, "Value for 'model_type' not supported."],
    ['bad tag_handling', { text: ['Hi'], target_lang: 'ES', tag_handling: 'json' }, "Value for 'tag_handling' not supported."],
    ['bad tag_handling_version', { text: ['Hi'], target_lang: 'ES', tag_handling_version: 'v3' }, "Value for 'tag_handling_version' not supported."],
    ['bad outline_detection', { text: ['Hi'], target_lang: 'ES', outline_detection: 'maybe' }, "Value for 'outline_detection' not supported."],
    ['formality more without support', { text: ['Hi'], target_lang: 'ES', source_lang: 'EN', formality: 'more' }, "Target language 'ES' doesn't support formality."],
    ['glossary without source_lang', { text: ['Hi'], target_lang: 'ES', glossary_id: 'def3a26b-3e84-45b3-84ae-0c0aaf3525f7' }, 'Use of a glossary requires the source_lang parameter to be specified'],
    ['glossary id not a uuid', { text: ['Hi'], target_lang: 'ES', source_lang: 'EN', glossary_id: 'nope' }, "Value for 'glossary_id' not supported."],
    ['style id not a uuid', { text: ['Hi'], target_lang: 'ES', style_id: 'nope' }, "Value for 'style_id' not supported."],
    ['threshold out of range', { text: ['Hi'], target_lang: 'ES', translation_memory_threshold: 101 }, 'Parameter "translation_memory_threshold" must be an integer between 0 and 100'],
    ['unsupported pair', { text: ['Hi'], target_lang: 'JA', source_lang: 'EN' }, "Translation from 'EN' to 'JA' is not supported by the installed engines."],
  ];
  for (const [name, body, message] of cases) {
    it(`400 on ${name}`, async () => {
      const res = await translateJson(body);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().message, message);
      assert.ok(res.headers['x-trace-id']);
    });
  }

  it('customization parameters are never ignored: unknown resources are 404, custom instructions on Apertium 400', async () => {
    const cases: [object, number, RegExp][] = [
      [{ glossary_id: 'def3a26b-3e84-45b3-84ae-0c0aaf3525f7', source_lang: 'EN' }, 404, /Glossary not found/],
      [{ style_id: '7ff9bfd6-cd85-4190-8503-d6215a321519' }, 404, /Style rule not found/],
      [{ translation_memory_id: '7ff9bfd6-cd85-4190-8503-d6215a321519', source_lang: 'EN' }, 404, /not found/i],
      [{ custom_instructions: ['Be nice'] }, 400, /'custom_instructions'/],
    ];
    for (const [extra, status, pattern] of cases) {
      const res = await translateJson({ text: ['Hi'], target_lang: 'ES', ...extra });
      assert.equal(res.statusCode, status, JSON.stringify(extra));
      assert.match(res.json().message, pattern);
    }
  });

  it('413 on more than 50 texts', async () => {
    const res = await translateJson({ text: Array.from({ length: 51 }, () => 'Hi'), target_lang: 'ES' });
    assert.equal(res.statusCode, 413);
    assert.match(res.json().message, /50/);
  });

  it('413 on a body over 128 KiB', async () => {
    const res = await translateJson({ text: ['a'.repeat(130 * 1024)], target_lang: 'ES' });
    assert.equal(res.statusCode, 413);
    assert.ok(res.headers['x-trace-id']);
  });

  it('400 on malformed JSON, never 500', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: { ...authHeaders(pro), 'content-type': 'application/json' },
      payload: '{"text": ["Hi"',
    });
    assert.equal(res.statusCode, 400);
    assert.ok(res.json().message);
  });

  it('415 on an unsupported content type', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: { ...authHeaders(pro), 'content-type': 'text/plain' },
      payload: 'Hi',
    });
    assert.equal(res.statusCode, 415);
  });

  it('form booleans use 0/1', async () => {
    const ok = await translateForm('text=Hi&target_lang=ES&source_lang=EN&preserve_formatting=1&outline_detection=0');
    assert.equal(ok.statusCode, 200);
    const bad = await translateForm('text=Hi&target_lang=ES&preserve_formatting=2');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().message, "Value for 'preserve_formatting' not supported.");
  });
});

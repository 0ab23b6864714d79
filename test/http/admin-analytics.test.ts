// /v2/admin/analytics and /custom-tags over HTTP: usage made by real /v2/translate requests on several days (injected
// clock) must add up to the billed characters, per key (masked), per key and day, per tag, across partial-day edges.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';
import { AnalyticsService } from '../../src/admin/analytics-service.js';

let ctx: TestContext;
let clock = Date.UTC(2026, 2, 10, 9, 0, 0); // 2026-03-10T09:00:00Z
let org: TestAccount;
let stranger: TestAccount;
let second: { key: string; key_id: string };

interface Event {
  at: string;
  keyId: string;
  tag: string | null;
  units: number;
  product: 'text_translation' | 'speech_to_text';
}
const events: Event[] = [];

const asKey = (account: TestAccount, secret: string) => ({ authorization: `Service-Auth-Key ${secret}`, host: account.host });

async function translateAt(at: string, account: TestAccount, secret: string, keyId: string, text: string, tag?: string) {
  clock = Date.parse(at);
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/v2/translate',
    headers: { ...asKey(account, secret), ...(tag !== undefined ? { 'x-service-reporting-tag': tag } : {}) },
    payload: { text: [text], target_lang: 'ES', source_lang: 'EN', show_billed_characters: true },
  });
  assert.equal(res.statusCode, 200, res.body);
  const units = res.json().billed_characters as number;
  assert.ok(units > 0);
  if (account === org) events.push({ at, keyId, tag: tag === undefined ? null : tag.trim().toLowerCase(), units, product: 'text_translation' });
}

before(async () => {
  ctx = await createTestApp({ now: () => clock });
  org = await createAccount(ctx);
  stranger = await createAccount(ctx);
  clock += 60_000; // the second key is younger: reports list keys in creation order
  const created = await ctx.app.inject({
    method: 'POST',
    url: '/v2/admin/developer-keys',
    headers: asKey(org, org.adminKey),
    payload: { label: 'second' },
  });
  second = created.json();
  await translateAt('2026-03-10T09:00:00Z', org, org.key, org.keyId, 'Hello.', 'team-a');
  await translateAt('2026-03-10T18:00:00Z', org, second.key, second.key_id, 'Good morning, everyone.');
  await translateAt('2026-03-11T12:00:00Z', org, org.key, org.keyId, 'The house is big.', ' Team-B ');
  await translateAt('2026-03-11T13:00:00Z', stranger, stranger.key, stranger.keyId, 'Not ours at all.', 'team-a');
  await translateAt('2026-03-13T08:00:00Z', org, second.key, second.key_id, 'Dog.', 'team-a');
  await translateAt('2026-03-13T23:59:59Z', org, org.key, org.keyId, 'The cat sleeps.', 'team-b');
  // Speech time through the billing service (the voice endpoints charge the same way).
  clock = Date.parse('2026-03-12T10:00:00Z');
  const auth = (await ctx.services.accounts.authenticate(second.key))!;
  await ctx.services.usage.charge(auth, 'speech_to_text', 90_000, 'team-a');
  events.push({ at: '2026-03-12T10:00:00Z', keyId: second.key_id, tag: 'team-a', units: 90_000, product: 'speech_to_text' });
});
after(async () => ctx.close());

function expected(filter: (e: Event) => boolean) {
  const chosen = events.filter(filter);
  const chars = chosen.filter((e) => e.product === 'text_translation').reduce((a, e) => a + e.units, 0);
  const ms = chosen.filter((e) => e.product === 'speech_to_text').reduce((a, e) => a + e.units, 0);
  return {
    total_characters: chars,
    text_translation_characters: chars,
    document_translation_characters: 0,
    text_improvement_characters: 0,
    speech_to_text_minutes: Math.round(ms / 600) / 100,
  };
}
const inRange = (from: string, to: string) => (e: Event) => Date.parse(e.at) >= Date.parse(from) && Date.parse(e.at) < Date.parse(to);

async function analytics(query: string, headers = asKey(org, org.adminKey)) {
  return ctx.app.inject({ method: 'GET', url: `/v2/admin/analytics?${query}`, headers });
}
async function tags(query: string) {
  return ctx.app.inject({ method: 'GET', url: `/v2/admin/analytics/custom-tags?${query}`, headers: asKey(org, org.adminKey) });
}
const mask = (secret: string) => `${secret.slice(0, 4)}****${secret.slice(-4)}`;

describe('usage report', () => {
  it('totals equal the characters billed by the translate requests and /v2/usage', async () => {
    const res = await analytics('start_date=2026-03-10&end_date=2026-03-14');
    assert.equal(res.statusCode, 200);
    const report = res.json().usage_report;
    assert.deepEqual(report.total_usage, expected(() => true));
    assert.equal(report.total_usage.speech_to_text_minutes, 1.5);
    assert.equal(report.start_date, '2026-03-10T00:00:00');
    assert.equal(report.end_date, '2026-03-14T00:00:00');
    assert.equal(report.group_by, undefined);
    assert.equal(report.key_usages, undefined);
    const usage = (await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers: asKey(org, org.key) })).json();
    assert.equal(report.total_usage.total_characters, usage.character_count);
  });

  it('group_by=key: one masked entry per key with its label', async () => {
    const report = (await analytics('start_date=2026-03-01&end_date=2026-04-01&group_by=key')).json().usage_report;
    assert.equal(report.group_by, 'key');
    assert.deepEqual(report.key_usages, [
      { api_key: mask(org.key), api_key_label: 'test', usage: expected((e) => e.keyId === org.keyId) },
      { api_key: mask(second.key), api_key_label: 'second', usage: expected((e) => e.keyId === second.key_id) },
    ]);
    for (const item of report.key_usages) assert.match(item.api_key, /^.{4}\*{4}.{4}$/);
    assert.ok(!JSON.stringify(report).includes(org.key) && !JSON.stringify(report).includes(second.key), 'no full secret');
  });

  it('group_by=key_and_day: per key and UTC day', async () => {
    const report = (await analytics('start_date=2026-03-10&end_date=2026-03-14&group_by=key_and_day')).json().usage_report;
    assert.equal(report.group_by, 'key_and_day');
    const day = (keyId: string, d: string) => expected((e) => e.keyId === keyId && e.at.startsWith(d));
    assert.deepEqual(report.key_and_day_usages, [
      { api_key: mask(org.key), api_key_label: 'test', usage_date: '2026-03-10T00:00:00Z', usage: day(org.keyId, '2026-03-10') },
      { api_key: mask(org.key), api_key_label: 'test', usage_date: '2026-03-11T00:00:00Z', usage: day(org.keyId, '2026-03-11') },
      { api_key: mask(org.key), api_key_label: 'test', usage_date: '2026-03-13T00:00:00Z', usage: day(org.keyId, '2026-03-13') },
      { api_key: mask(second.key), api_key_label: 'second', usage_date: '2026-03-10T00:00:00Z', usage: day(second.key_id, '2026-03-10') },
      { api_key: mask(second.key), api_key_label: 'second', usage_date: '2026-03-12T00:00:00Z', usage: day(second.key_id, '2026-03-12') },
      { api_key: mask(second.key), api_key_label: 'second', usage_date: '2026-03-13T00:00:00Z', usage: day(second.key_id, '2026-03-13') },
    ]);
    const sum = report.key_and_day_usages.reduce((a: number, i: { usage: { total_characters: number } }) => a + i.usage.total_characters, 0);
    assert.equal(sum, report.total_usage.total_characters);
  });

  it('ranges are [start, end): times of day cut partial days; the end date is exclusive', async () => {
    for (const [from, to] of [
      ['2026-03-10T12:00:00', '2026-03-13T12:00:00'],
      ['2026-03-10T08:00:00', '2026-03-10T10:00:00'],
      ['2026-03-10T09:00:01', '2026-03-13T23:59:59'],
      ['2026-03-11', '2026-03-13'],
      ['2026-03-13T08:00:00', '2026-03-14'],
    ] as const) {
      const report = (await analytics(`start_date=${from}&end_date=${to}&group_by=key`)).json().usage_report;
      const utc = (d: string) => (d.length === 10 ? `${d}T00:00:00Z` : `${d}Z`);
      assert.deepEqual(report.total_usage, expected(inRange(utc(from), utc(to))), `${from} → ${to}`);
    }
    const empty = (await analytics('start_date=2025-01-01&end_date=2025-02-01&group_by=key')).json().usage_report;
    assert.equal(empty.total_usage.total_characters, 0);
    assert.deepEqual(empty.key_usages, []);
  });
});

describe('custom tag report', () => {
  it('aggregate_by period (default): one entry per tag, untagged usage left out, other accounts invisible', async () => {
    const res = await tags('start_date=2026-03-10&end_date=2026-03-14');
    assert.equal(res.statusCode, 200);
    const report = res.json().custom_tag_usage_report;
    const tagBreakdown = (tag: string) => {
      const b = expected((e) => e.tag === tag);
      return {
        total_characters: b.total_characters,
        text_translation_characters: b.text_translation_characters,
        text_improvement_characters: 0,
        speech_to_text_minutes: b.speech_to_text_minutes,
        speech_to_speech_minutes: 0,
      };
    };
    assert.deepEqual(report, {
      aggregate_by: 'period',
      start_date: '2026-03-10T00:00:00',
      end_date: '2026-03-14T00:00:00',
      next_page: null,
      usage: [
        { custom_tag: 'team-a', breakdown: tagBreakdown('team-a') },
        { custom_tag: 'team-b', breakdown: tagBreakdown('team-b') },
      ],
    });
    assert.equal(report.usage[0]!.breakdown.speech_to_text_minutes, 1.5);
  });

  it('aggregate_by day: per tag and UTC day, sorted by tag then day', async () => {
    const report = (await tags('start_date=2026-03-10&end_date=2026-03-14&aggregate_by=day')).json().custom_tag_usage_report;
    assert.equal(report.aggregate_by, 'day');
    assert.deepEqual(
      report.usage.map((u: { custom_tag: string; usage_date: string; breakdown: { total_characters: number } }) => [
        u.custom_tag,
        u.usage_date,
        u.breakdown.total_characters,
      ]),
      [
        ['team-a', '2026-03-10T00:00:00Z', expected((e) => e.tag === 'team-a' && e.at.startsWith('2026-03-10')).total_characters],
        ['team-a', '2026-03-12T00:00:00Z', 0],
        ['team-a', '2026-03-13T00:00:00Z', expected((e) => e.tag === 'team-a' && e.at.startsWith('2026-03-13')).total_characters],
        ['team-b', '2026-03-11T00:00:00Z', expected((e) => e.tag === 'team-b' && e.at.startsWith('2026-03-11')).total_characters],
        ['team-b', '2026-03-13T00:00:00Z', expected((e) => e.tag === 'team-b' && e.at.startsWith('2026-03-13')).total_characters],
      ],
    );
  });

  it('paginates with page / next_page until next_page is null', async () => {
    const service = new AnalyticsService(ctx.services.store.repositories.accounts, ctx.services.store.repositories.admin, { customTagPageSize: 2 });
    const account = (await ctx.services.accounts.getAccount(org.accountId))!;
    const seen: string[] = [];
    let page: number | null = 1;
    const pages: (number | null)[] = [];
    while (page !== null) {
      const report = await service.customTagReport(account, { from: Date.UTC(2026, 2, 10), to: Date.UTC(2026, 2, 14) }, 'day', page);
      assert.ok(report.usage.length <= 2);
      seen.push(...report.usage.map((u) => `${u.tag} ${u.day!.toISOString().slice(0, 19)}Z`));
      pages.push(report.nextPage);
      page = report.nextPage;
    }
    assert.deepEqual(pages, [2, 3, null]);
    const all = (await tags('start_date=2026-03-10&end_date=2026-03-14&aggregate_by=day')).json().custom_tag_usage_report.usage;
    assert.deepEqual(seen, all.map((u: { custom_tag: string; usage_date: string }) => `${u.custom_tag} ${u.usage_date}`));
    const beyond = (await tags('start_date=2026-03-10&end_date=2026-03-14&page=9')).json().custom_tag_usage_report;
    assert.deepEqual([beyond.usage, beyond.next_page], [[], null]);
  });
});

describe('reporting tags', () => {
  it('validated on billable requests (either header name), normalised, and reported under the normalised tag', async () => {
    clock = Date.parse('2026-03-20T10:00:00Z');
    const send = (headers: Record<string, string>) =>
      ctx.app.inject({
        method: 'POST',
        url: '/v2/translate',
        headers: { ...asKey(stranger, stranger.key), ...headers },
        payload: { text: ['Hello.'], target_lang: 'ES', source_lang: 'EN' },
      });
    for (const [tag, message] of [
      ['has space', 'Invalid reporting tag: only printable ASCII characters without whitespace are allowed.'],
      ['caf\u00e9', 'Invalid reporting tag: only printable ASCII characters without whitespace are allowed.'],
      ['a'.repeat(101), 'Invalid reporting tag: at most 100 characters are allowed.'],
    ] as const) {
      for (const header of ['x-service-reporting-tag', 'x-deepl-reporting-tag']) {
        const res = await send({ [header]: tag });
        assert.equal(res.statusCode, 400, `${header}: ${tag}`);
        assert.equal(res.json().message, message);
      }
    }
    const longest = `  ${'B'.repeat(100)} `;
    assert.equal((await send({ 'x-deepl-reporting-tag': longest })).statusCode, 200);
    assert.equal((await send({ 'x-service-reporting-tag': 'Docs-Team' })).statusCode, 200);
    const report = (
      await ctx.app.inject({
        method: 'GET',
        url: '/v2/admin/analytics/custom-tags?start_date=2026-03-20&end_date=2026-03-21',
        headers: asKey(stranger, stranger.adminKey),
      })
    ).json().custom_tag_usage_report;
    assert.deepEqual(
      report.usage.map((u: { custom_tag: string; breakdown: { total_characters: number } }) => [u.custom_tag, u.breakdown.total_characters]),
      [
        ['b'.repeat(100), 6],
        ['docs-team', 6],
      ],
    );
  });
});

describe('errors', () => {
  const cases: [string, string][] = [
    ['end_date=2026-03-14', "Parameter 'start_date' not specified"],
    ['start_date=2026-03-10', "Parameter 'end_date' not specified"],
    [
      'start_date=10.03.2026&end_date=2026-03-14',
      "Value for 'start_date' not supported. Use an ISO 8601 date (YYYY-MM-DD) or UTC date and time (YYYY-MM-DDTHH:MM:SS).",
    ],
    [
      'start_date=2026-02-30&end_date=2026-03-14',
      "Value for 'start_date' not supported. Use an ISO 8601 date (YYYY-MM-DD) or UTC date and time (YYYY-MM-DDTHH:MM:SS).",
    ],
    [
      'start_date=2026-03-10&end_date=2026-03-14T25:00:00',
      "Value for 'end_date' not supported. Use an ISO 8601 date (YYYY-MM-DD) or UTC date and time (YYYY-MM-DDTHH:MM:SS).",
    ],
    ['start_date=2026-03-10&end_date=2026-03-10', 'Bad request. Reason: end_date must be after start_date'],
    ['start_date=2026-03-10&end_date=2026-03-01', 'Bad request. Reason: end_date must be after start_date'],
    ['start_date=2025-01-01&end_date=2026-01-03', 'Bad request. Reason: Date range cannot exceed 366 days'],
    ['start_date=2025-01-01T00:00:00&end_date=2026-01-02T00:00:01', 'Bad request. Reason: Date range cannot exceed 366 days'],
    ['start_date=2026-03-10&start_date=2026-03-11&end_date=2026-03-14', "Value for 'start_date' not supported. Send the parameter once."],
  ];

  it('every date error of both endpoints, with clear messages', async () => {
    for (const [query, message] of cases) {
      for (const res of [await analytics(query), await tags(query)]) {
        assert.equal(res.statusCode, 400, query);
        assert.equal(res.json().message, message, query);
      }
    }
    // 366 days is allowed (2024 is a leap year: 2024-01-01 → 2025-01-01 is 366 days).
    assert.equal((await analytics('start_date=2024-01-01&end_date=2025-01-01')).statusCode, 200);
    assert.equal((await tags('start_date=2024-01-01&end_date=2025-01-01')).statusCode, 200);
  });

  it('group_by, aggregate_by and page with the reference messages', async () => {
    for (const value of ['day', 'KEY', 'keys']) {
      const res = await analytics(`start_date=2026-03-10&end_date=2026-03-14&group_by=${value}`);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().message, "Value for 'group_by' not supported. Allowed: '', 'key', 'key_and_day'.");
    }
    assert.equal((await analytics('start_date=2026-03-10&end_date=2026-03-14&group_by=')).statusCode, 200);
    for (const value of ['key', 'month']) {
      const res = await tags(`start_date=2026-03-10&end_date=2026-03-14&aggregate_by=${value}`);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().message, "Value for 'aggregate_by' not supported. Allowed: '', 'period', 'day'.");
    }
    assert.equal((await tags('start_date=2026-03-10&end_date=2026-03-14&aggregate_by=')).json().custom_tag_usage_report.aggregate_by, 'period');
    for (const value of ['0', '-1', 'two', '1.5']) {
      const res = await tags(`start_date=2026-03-10&end_date=2026-03-14&page=${value}`);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().message, "Value for 'page' not supported. Use a page number of 1 or more, as given in next_page.");
    }
  });

  it('403 for developer keys', async () => {
    for (const url of ['/v2/admin/analytics', '/v2/admin/analytics/custom-tags']) {
      const res = await ctx.app.inject({ method: 'GET', url: `${url}?start_date=2026-03-10&end_date=2026-03-14`, headers: asKey(org, org.key) });
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().message, 'Forbidden. This endpoint requires an admin key.');
    }
  });
});

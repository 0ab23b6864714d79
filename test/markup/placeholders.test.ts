// Placeholder recognition (src/markup/placeholders.ts) and its cut around the engine (identifiers.ts): each shape
// found, prose that only looks like one left alone (FLORES in every language: the engine gets what it got before),
// tags paired only where they nest with the unit's own, and hostile texts of megabytes matched without holding the loop.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { identifierSpans, placeholderSpans, translateKeepingIdentifiers, type TaggedText } from '../../src/markup/index.js';
import { FLORES_DIR, floresLines } from '../helpers/flores.js';
import { LoopStallMonitor } from '../helpers/loop-stall.js';

const found = async (text: string) => (await placeholderSpans(text)).map((s) => `${s.kind}:${text.slice(s.start, s.end)}`);

/** A translator that records what the engine is given and answers with it unchanged. */
function recorder(): { seen: string[]; translate: (segments: string[]) => Promise<string[]> } {
  const seen: string[] = [];
  return { seen, translate: async (segments) => (seen.push(...segments), segments) };
}

describe('placeholder spans', () => {
  it('finds each shape of app strings', async () => {
    const cases: [string, string[]][] = [
      ['Hello {name}, item {0} of {1}, {} and {count, number}.', ['empty:{name}', 'empty:{0}', 'empty:{1}', 'empty:{}', 'empty:{count, number}']],
      ['{{count}} and {{ count }} and {{{raw}}}', ['empty:{{count}}', 'empty:{{ count }}', 'empty:{{{raw}}}']],
      ['%s, %d, %1$s, %-5.2f, %lu, %@ and %%', ['empty:%s', 'empty:%d', 'empty:%1$s', 'empty:%-5.2f', 'empty:%lu', 'empty:%@', 'empty:%%']],
      ['Hello %(name)s, ${user} and $t(common.ok).', ['empty:%(name)s', 'empty:${user}', 'empty:$t(common.ok)']],
      ['Hello :name, your :Item shipped (:count).', ['empty::name', 'empty::Item', 'empty::count']],
      ['Click <0>here</0>, <1/> or <b>bold <i>text</i></b>.', ['open:<0>', 'close:</0>', 'empty:<1/>', 'open:<b>', 'open:<i>', 'close:</i>', 'close:</b>']],
      // a numbered tag unpaired is still code; named tags that do not nest are no tags
      ['<0>a <1>b</0> <b>x <i>y</b> z</i>', ['open:<0>', 'empty:<1>', 'close:</0>', 'open:<b>', 'close:</b>']],
    ];
    for (const [text, expected] of cases) assert.deepEqual(await found(text), expected, text);
  });

  it('leaves prose that only looks like a placeholder', async () => {
    const prose = [
      'Note: the meeting is at 10:30.',
      'It is 50% done, 20%off, 5% of them; Azerbaijani writes 93%-i.',
      'Re:Subject, std::vector, https://example.com:8080/a and C:\\Users.',
      'If a < b and b > c, then C# and F# are #1.',
      'Braces alone { and } and a ratio of 3:2.',
      'নি:সন্দেহে and (ഡച്ച്:ഗ്രാ) join words with a colon.',
    ];
    for (const text of prose) assert.deepEqual(await found(text), [], text);
  });

  it('in FLORES (every language) are only the HTML tags a few sentences hold', async () => {
    const langs = readdirSync(FLORES_DIR).map((f) => f.replace(/^flores-dev\./u, ''));
    assert.ok(langs.length > 30);
    let withTags = 0;
    for (const lang of langs) {
      for (const line of floresLines(lang)) {
        const spans = await found(line);
        if (spans.length > 0) withTags++;
        for (const s of spans) assert.match(s, /^(open|close):<\/?[a-z]+>$/u, `${lang}: ${line}`);
      }
    }
    assert.ok(withTags <= 5, `${withTags} sentences`);
  });
});

describe('placeholders kept around the engine', () => {
  it('FLORES sentences reach the engine exactly as before (identifiers alone cut)', async () => {
    for (const lang of ['en', 'es', 'fr', 'de', 'pt', 'ru', 'zh', 'ar']) {
      const lines = floresLines(lang);
      const { seen, translate } = recorder();
      const out = await translateKeepingIdentifiers(lines.map((text) => ({ text, marks: [] })), translate, 'placeholders');
      const expected = await Promise.all(
        lines.map(async (line) => {
          const spans = await identifierSpans(line);
          let text = '';
          let at = 0;
          spans.forEach((s, k) => {
            text += `${line.slice(at, s.start)}⟦${k}/⟧`;
            at = s.end;
          });
          return text + line.slice(at);
        }),
      );
      assert.deepEqual(seen, expected, lang);
      assert.deepEqual(out.map((u) => u.text), lines, lang);
    }
  });

  it('gives every placeholder back when the engine drops the marks, blanks kept around them', async () => {
    const drop = async (segments: string[]) => segments.map((s) => s.replace(/⟦\/?\d+\/?⟧/gu, '').toUpperCase());
    const [out] = await translateKeepingIdentifiers([{ text: 'Hello {name}, you have %d new <0>messages</0>.', marks: [] }], drop, 'placeholders');
    for (const p of ['{name}', '%d', '<0>', '</0>']) assert.equal(out!.text.split(p).length, 2, out!.text);
    assert.match(out!.text, /^HELLO \{name\}/u);
    assert.doesNotMatch(out!.text, /[\p{L}\p{N}](\{name\}|%d)|(\{name\}|%d)[\p{L}\p{N}]/u);
  });

  it('pairs tags only where they nest with the unit’s own tags (else each is kept alone)', async () => {
    // The unit's tag 0 opens inside <0>…</0> and closes after it: the two tags cannot be a pair around the words.
    const unit: TaggedText = { text: 'x <0>ab cd</0> y', marks: [{ id: 0, kind: 'open', pos: 8 }, { id: 0, kind: 'close', pos: 14 }] };
    const { seen, translate } = recorder();
    const [out] = await translateKeepingIdentifiers([unit], translate, 'placeholders');
    assert.deepEqual(seen, ['x ⟦1/⟧ab ⟦0⟧cd⟦2/⟧⟦/0⟧ y']);
    assert.deepEqual(out, unit);
    const nested: TaggedText = { text: 'x <0>ab cd</0> y', marks: [{ id: 0, kind: 'open', pos: 8 }, { id: 0, kind: 'close', pos: 10 }] };
    const again = recorder();
    const [back] = await translateKeepingIdentifiers([nested], again.translate, 'placeholders');
    assert.deepEqual(again.seen, ['x ⟦1⟧ab ⟦0⟧cd⟦/0⟧⟦/1⟧ y']);
    assert.deepEqual(back, nested);
  });

  it('translates an ICU message branch by branch, # and arguments kept', async () => {
    const { seen, translate } = recorder();
    const text = 'You have {count, plural, one {# message from {name}} other {# messages}}.';
    const [out] = await translateKeepingIdentifiers([{ text, marks: [] }], translate, 'placeholders');
    assert.deepEqual(seen, ['You have', '⟦0/⟧ message from ⟦1/⟧', '⟦0/⟧ messages', '.'].filter((s) => /[\p{L}\p{N}]/u.test(s)));
    assert.equal(out!.text, text);
  });
});

describe('hostile texts', () => {
  it('of megabytes are matched without holding the event loop', async () => {
    const texts = ['<0>x</0>'.repeat(500_000), '<b>'.repeat(1_300_000), '%d'.repeat(2_000_000), ' :a'.repeat(1_300_000), '{'.repeat(4_000_000)];
    const monitor = new LoopStallMonitor(300);
    try {
      const counts = [];
      for (const t of texts) counts.push((await placeholderSpans(t)).length);
      const stall = monitor.worst();
      assert.deepEqual(counts, [1_000_000, 0, 2_000_000, 1_300_000, 0]);
      assert.equal(stall, undefined, `the event loop stalled ${stall?.lagMs} ms (${stall?.cpuMs} ms on the CPU)`);
    } finally {
      monitor.stop();
    }
  });
});

// Damaged glossary entries (TSV/CSV) and TMX files: each ends in the parser's own clear error or a valid reading,
// never another exception, a hang or a crash.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEntries } from '../../src/customization/glossaries/entries.js';
import { TmxError, readTmx } from '../../src/customization/memories/tmx.js';
import { ServiceError } from '../../src/lib/errors.js';
import { prng } from '../helpers/prng.js';

const FIXTURES = new URL('../../../test/fixtures/customization/', import.meta.url);


const NASTY = ['\t', ',', '"', '""', '\n', '\r\n', '\u0000', '\u0085', '\u2028', ' ', '\ud800', '<', '&', ']]>', 'é', '😀'];

/** Copies of `text` with truncations, inserted hostile characters and swapped lines. */
function damaged(text: string, count: number, seed: number): string[] {
  const rand = prng(seed);
  const out: string[] = ['', text.slice(0, 1)];
  while (out.length < count) {
    let t = text;
    switch (rand(3)) {
      case 0:
        t = t.slice(0, rand(t.length));
        break;
      case 1:
        for (let i = 0; i < 1 + rand(6); i++) {
          const at = rand(t.length);
          t = t.slice(0, at) + NASTY[rand(NASTY.length)]! + t.slice(at);
        }
        break;
      default: {
        const lines = t.split('\n');
        const a = rand(lines.length);
        lines.splice(rand(lines.length), 0, lines[a]!);
        t = lines.join('\n');
      }
    }
    out.push(t);
  }
  return out;
}

describe('glossary entries fuzz', () => {
  const tsv = 'hello\thola\nworld\tmundo\n"quoted term"\t"término"\nprinter\timpresora\ten\tes\n';
  const csv = 'hello,hola\n"a, b","c ""d"""\nworld,mundo,en,es\n';
  for (const [format, sample] of [['tsv', tsv], ['csv', csv]] as const) {
    it(`${format}: damaged input parses or fails with a 400 naming the entry`, () => {
      for (const [i, text] of damaged(sample, 300, format === 'tsv' ? 7 : 11).entries()) {
        try {
          const entries = parseEntries(text, format);
          for (const e of entries) assert.ok(e.source.length > 0 && e.target.length > 0, `case ${i}: empty term accepted`);
        } catch (err) {
          assert.ok(err instanceof ServiceError, `case ${i} ${JSON.stringify(text)}: ${String(err)}`);
          assert.equal(err.message, 'Invalid glossary entries provided');
        }
      }
    });
  }
});

describe('TMX fuzz', () => {
  it('damaged TMX files end in TmxError or a valid reading', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tolk-tmx-fuzz-'));
    try {
      const sample = readFileSync(new URL('small.tmx', FIXTURES), 'utf8');
      const extra = [
        '<?xml version="1.0"?><!DOCTYPE tmx [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><tmx><body>&b;</body></tmx>',
        '<tmx version="1.4"><header srclang="en"/><body><tu><tuv xml:lang="en"><seg>x</seg></tuv>',
        '\u0000\u0001binary',
      ];
      for (const [i, text] of [...extra, ...damaged(sample, 150, 3)].entries()) {
        const file = join(dir, `case-${i}.tmx`);
        writeFileSync(file, text);
        let units = 0;
        try {
          await readTmx(file, () => {}, (u) => {
            units++;
            assert.ok(typeof u.source === 'string' && u.targets.size > 0);
          }, () => {});
        } catch (err) {
          assert.ok(err instanceof TmxError, `case ${i} ${JSON.stringify(text.slice(0, 80))}: ${String(err)}`);
        }
        assert.ok(units <= 3, `case ${i}: ${units} units from a 3-unit file`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

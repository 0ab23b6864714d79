// Contract every DocumentFormat must meet; test/documents/format-contract.test.ts runs it for each registered format.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DocumentFormatError, type DocumentFormat, type ExtractedDocument, type ExtractOptions } from '../../src/documents/formats/format.js';
import { prng } from '../helpers/prng.js';

export interface FormatContractSetup {
  format: DocumentFormat;
  /** A real sample file of the format with translatable text. */
  sample: Buffer;
  /** Options passed to extract (target language and whatever the format needs). */
  options?: ExtractOptions;
  /** Formats that bill nothing by design (images during the beta: billedCharacters 0) say so here. */
  billsNothing?: boolean;
  /** How many damaged copies the fuzz test tries (formats that run an external program per try want fewer). */
  fuzzCases?: number;
  /**
   * The text of a translated file, where re-extracting it does not show the translation (bilingual formats such as
   * XLIFF extract their sources again). Default: the re-extracted segments.
   */
  translatedText?: (output: Buffer) => string | Promise<string>;
  /** Formats that read their text back approximately (OCR) compare words, not exact segments, after a round trip. */
  approximate?: boolean;
}

/** Share of the words of `a` that are also in `b`. */
function wordOverlap(a: string, b: string): number {
  const words = (t: string) => t.toLowerCase().match(/\p{L}+/gu) ?? [];
  const have = new Set(words(b));
  const want = words(a);
  return want.length === 0 ? 1 : want.filter((w) => have.has(w)).length / want.length;
}

const OPTIONS: ExtractOptions = { targetLang: 'es' };

/** The translated file: through translateWith when the format has it (markup formats), else rebuild. */
async function translateDocument(doc: ExtractedDocument, translate: (texts: string[]) => string[]): Promise<Buffer> {
  if (doc.translateWith) return doc.translateWith(async (texts) => translate(texts));
  return doc.rebuild(translate(doc.segments.map((s) => s.text)));
}

/** Upper-cases ASCII words: visible in any output, keeps the text's shape (placeholders are not lower-case words). */
const shout = (texts: string[]) => texts.map((t) => t.replace(/\b[a-z]{2,}\b/g, (w) => w.toUpperCase()));

/** Deterministic pseudo-random damage: truncations, flipped bytes and overwritten runs. */
function damagedCopies(sample: Buffer, count: number): Buffer[] {
  const rand = prng(0x2545f491);
  const out: Buffer[] = [Buffer.alloc(0), sample.subarray(0, 1), sample.subarray(0, sample.length >> 1)];
  while (out.length < count) {
    const copy = Buffer.from(sample);
    switch (out.length % 3) {
      case 0:
        out.push(copy.subarray(0, rand(copy.length)));
        break;
      case 1:
        for (let i = 0; i < 8; i++) copy[rand(copy.length)] = rand(256);
        out.push(copy);
        break;
      default: {
        const at = rand(copy.length);
        copy.fill(rand(256), at, Math.min(copy.length, at + 64));
        out.push(copy);
      }
    }
  }
  return out;
}

export function runFormatContract(label: string, factory: () => FormatContractSetup | Promise<FormatContractSetup>): void {
  describe(`format contract: ${label}`, () => {
    it('extracts segments with text and counts its characters', async () => {
      const setup = await factory();
      const doc = await setup.format.extract(setup.sample, setup.options ?? OPTIONS);
      assert.ok(doc.segments.length > 0, 'no segments');
      assert.ok(doc.segments.some((s) => /\p{L}/u.test(s.text)), 'no segment has letters');
      assert.ok(doc.characters > 0, 'no characters of text');
      if (setup.billsNothing) assert.equal(doc.billedCharacters, 0);
    });

    it('an identity translation gives a file the format reads back to the same segments', async () => {
      const setup = await factory();
      const options = setup.options ?? OPTIONS;
      const doc = await setup.format.extract(setup.sample, options);
      const out = await translateDocument(doc, (texts) => texts);
      const again = await setup.format.extract(out, options);
      if (setup.approximate) {
        const overlap = wordOverlap(doc.segments.map((s) => s.text).join(' '), again.segments.map((s) => s.text).join(' '));
        assert.ok(overlap >= 0.9, `only ${Math.round(overlap * 100)} % of the words read back`);
      } else {
        assert.deepEqual(again.segments.map((s) => s.text), doc.segments.map((s) => s.text));
      }
    });

    it('a translation reaches the output, and the output is a file of the same format', async () => {
      const setup = await factory();
      const options = setup.options ?? OPTIONS;
      const doc = await setup.format.extract(setup.sample, options);
      const out = await translateDocument(doc, shout);
      assert.notDeepEqual(out, setup.sample);
      const text = setup.translatedText
        ? await setup.translatedText(out)
        : (await setup.format.extract(out, options)).segments.map((s) => s.text).join(' ');
      const words = (t: string) => t.match(/\b[A-Z]{2,}\b/g) ?? [];
      const expected = new Set(words(shout(doc.segments.map((s) => s.text)).join(' ')));
      const found = new Set(words(text));
      const kept = [...expected].filter((w) => found.has(w)).length;
      assert.ok(kept >= expected.size * 0.9, `only ${kept} of ${expected.size} translated words are in the output`);
    });

    it('damaged files end in DocumentFormatError or a valid reading, never another error', async () => {
      const setup = await factory();
      const options = setup.options ?? OPTIONS;
      for (const [i, damaged] of damagedCopies(setup.sample, setup.fuzzCases ?? 40).entries()) {
        try {
          const doc = await setup.format.extract(damaged, options);
          await translateDocument(doc, shout);
        } catch (err) {
          assert.ok(err instanceof DocumentFormatError, `damaged copy ${i} (${damaged.length} bytes): ${String(err)}`);
          assert.ok(err.message.length > 0);
        }
      }
    });
  });
}

// Image documents with real Tesseract: OCR finds the fixture's paragraphs, the translation is painted over them (OCR
// reads it back), everything outside the text stays as it was, and bad files are refused with a clear error.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createCanvas } from '@napi-rs/canvas';
import { createImageFormat, NO_TEXT_FOUND } from '../../src/documents/formats/image/image-format.js';
import { readImageHeader } from '../../src/documents/formats/image/image-header.js';
import { decodeIsolated, type DecodedImage } from '../../src/documents/formats/image/isolated-decoder.js';
import { paragraphsOf, type Box } from '../../src/documents/formats/image/paragraphs.js';
import type { RecognizedWord, RgbImage, TextRecognizer } from '../../src/documents/formats/image/text-recognizer.js';
import { DocumentFormatError, type ExtractedDocument } from '../../src/documents/formats/format.js';
import { DocumentFormats } from '../../src/documents/formats/index.js';
import { TesseractRecognizer } from '../../src/documents/ocr/tesseract-recognizer.js';

const FIXTURES = new URL('../../../test/fixtures/documents/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));
/** The fixtures' text, as scripts/make-image-fixtures.mjs draws it. */
const PARAGRAPHS = ['The house is very big and the garden is green.', 'The dog sleeps in the red car near the old church.'];

const tesseract = new TesseractRecognizer();
/** Real OCR that also keeps what it saw, so tests know where the text was. */
class RecordingRecognizer implements TextRecognizer {
  words: RecognizedWord[] = [];
  async recognize(image: RgbImage, language: string | undefined) {
    this.words = await tesseract.recognize(image, language);
    return this.words;
  }
}
const noOcr: TextRecognizer = {
  recognize: () => assert.fail('a refused file must not reach OCR'),
};

const wordsOf = (s: string) => s.split(/\s+/).map((w) => w.replace(/[^\p{L}\p{N}]/gu, '')).filter((w) => w !== '');
/** Share of the expected words found (as a multiset) among the recognized ones. */
function wordAccuracy(expected: string, recognized: string): number {
  const pool = wordsOf(recognized);
  let found = 0;
  for (const w of wordsOf(expected)) {
    const i = pool.indexOf(w);
    if (i >= 0) {
      found++;
      pool.splice(i, 1);
    }
  }
  return found / wordsOf(expected).length;
}

async function ocrText(image: DecodedImage, language: string | undefined): Promise<string> {
  const rgb = Buffer.alloc(image.width * image.height * 3);
  for (let i = 0, j = 0; i < image.data.length; i += 4, j += 3) rgb.set(image.data.subarray(i, i + 3), j);
  return paragraphsOf(await tesseract.recognize({ width: image.width, height: image.height, rgb }, language)).map((p) => p.text).join('\n');
}

/** Paragraph boxes grown by `grow` pixels: everything outside them must be left as it was. */
function textAreas(words: RecognizedWord[], grow: number): Box[] {
  return paragraphsOf(words).map(({ box: b }) => ({ left: b.left - grow, top: b.top - grow, width: b.width + 2 * grow, height: b.height + 2 * grow }));
}
const inside = (areas: Box[], x: number, y: number) => areas.some((a) => x >= a.left && x < a.left + a.width && y >= a.top && y < a.top + a.height);

/**
 * Compares the images outside the text areas. Below an area (down to the image's edge) a longer translation may
 * continue, but only over pixels that were plain background: those pixels are only checked to have been background
 * (the colour of the image's top-left corner) wherever they changed.
 */
function compare(a: DecodedImage, b: DecodedImage, areas: Box[], changedOver = 64) {
  const background = [0, 1, 2].map((c) => a.data[c]!);
  const below = areas.map((r) => ({ left: r.left, top: r.top + r.height, width: r.width, height: a.height }));
  let max = 0;
  let sum = 0;
  let n = 0;
  let changedInside = 0;
  let changedOverContent = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      const i = (y * a.width + x) * 4;
      const d = Math.max(...[0, 1, 2, 3].map((c) => Math.abs(a.data[i + c]! - b.data[i + c]!)));
      if (inside(areas, x, y)) {
        if (d > changedOver) changedInside++;
        continue;
      }
      if (inside(below, x, y)) {
        const wasBackground = [0, 1, 2].every((c) => Math.abs(a.data[i + c]! - background[c]!) <= 24);
        if (d > changedOver && !wasBackground) changedOverContent++;
        continue;
      }
      max = Math.max(max, d);
      sum += d;
      n++;
    }
  }
  return { max, mean: sum / n, changedInside, changedOverContent };
}

function meanColour(img: DecodedImage, box: Box): number[] {
  const sum = [0, 0, 0];
  for (let y = box.top; y < box.top + box.height; y++) {
    for (let x = box.left; x < box.left + box.width; x++) for (let c = 0; c < 3; c++) sum[c]! += img.data[(y * img.width + x) * 4 + c]!;
  }
  return sum.map((s) => s / (box.width * box.height));
}

describe('png: OCR, paint, round trip', () => {
  const ocr = new RecordingRecognizer();
  const png = createImageFormat('png', ocr);
  let doc: ExtractedDocument;
  before(async () => {
    doc = await png.extract(fixture('sample.png'), { targetLang: 'es', sourceLang: 'en' });
  });

  it('finds the two English paragraphs, one segment each; image text is not billed (beta)', () => {
    assert.equal(doc.segments.length, 2, JSON.stringify(doc.segments));
    doc.segments.forEach((s, i) => {
      assert.equal(s.kind, 'text');
      assert.ok(wordAccuracy(PARAGRAPHS[i]!, s.text) >= 0.9, `${s.text} vs ${PARAGRAPHS[i]}`);
    });
    assert.equal(doc.characters, doc.segments.reduce((n, s) => n + [...s.text].length, 0));
    assert.equal(doc.billedCharacters, 0);
    assert.equal(png.minimumBilledCharacters, 0);
  });

  it('paints the translation in place: same size and format, OCR reads the new text, nothing else changes', async () => {
    const source = fixture('sample.png');
    const out = await doc.rebuild(doc.segments.map((s) => s.text.toUpperCase()));
    assert.deepEqual(readImageHeader(out), readImageHeader(source));
    const [before, after] = await Promise.all([decodeIsolated(source, 1e6), decodeIsolated(out, 1e6)]);

    const text = await ocrText(after, 'en');
    for (const p of PARAGRAPHS) assert.ok(wordAccuracy(p.toUpperCase(), text) >= 0.9, text);
    // the original lower-case text is gone
    assert.equal(wordsOf(text).filter((w) => /\p{Ll}{2}/u.test(w)).length, 0, text);

    // outside the text boxes (grown by the anti-aliasing margin), a lossless PNG is unchanged to the bit
    const { max, changedInside, changedOverContent } = compare(before, after, textAreas(ocr.words, 8));
    assert.equal(max, 0);
    assert.equal(changedOverContent, 0);
    assert.ok(changedInside > 1000, `only ${changedInside} pixels changed in the text boxes`);
  });
});

describe('jpeg on a coloured background', () => {
  it('keeps background, band and text colour; OCR reads the painted text', async () => {
    const ocr = new RecordingRecognizer();
    const jpeg = createImageFormat('jpeg', ocr);
    const source = fixture('sample.jpg');
    // no source language: the recognizer tries all its languages together
    const doc = await jpeg.extract(source, { targetLang: 'es' });
    assert.equal(doc.segments.length, 2);
    doc.segments.forEach((s, i) => assert.ok(wordAccuracy(PARAGRAPHS[i]!, s.text) >= 0.9, s.text));

    const out = await doc.rebuild(doc.segments.map((s) => s.text.toUpperCase()));
    assert.deepEqual(readImageHeader(out), readImageHeader(source));
    assert.equal(readImageHeader(out).type, 'jpeg');
    const [before, after] = await Promise.all([decodeIsolated(source, 1e6), decodeIsolated(out, 1e6)]);
    const areas = textAreas(ocr.words, 8);
    // re-encoding a JPEG moves pixels a little; the 8×8 blocks next to the painted text a little more
    const { max, mean, changedInside, changedOverContent } = compare(before, after, textAreas(ocr.words, 16));
    assert.ok(mean < 1.5 && max < 40, `outside the text: mean ${mean}, max ${max}`);
    assert.equal(changedOverContent, 0);
    assert.ok(changedInside > 1000);

    // the band (#2a6f97) and the background (#f3e3b0) are still those colours, also where the old text was
    const near = (got: number[], want: number[]) => got.every((v, c) => Math.abs(v - want[c]!) < 6);
    const band = meanColour(after, { left: 0, top: after.height - 30, width: after.width, height: 20 });
    assert.ok(near(band, [0x2a, 0x6f, 0x97]), `band ${band}`);
    const firstArea = areas[0]!;
    const besideText = meanColour(after, { left: firstArea.left + firstArea.width + 10, top: firstArea.top, width: 20, height: 20 });
    assert.ok(near(besideText, [0xf3, 0xe3, 0xb0]), `background ${besideText}`);
    // the new text has the old one's colour (#1b2a5a drawn; JPEG's 4:2:0 colour subsampling bleeds the yellow
    // background into thin strokes at every encoding, so only about), not black
    const ink = (img: DecodedImage) => {
      const px: number[][] = [];
      for (let y = firstArea.top; y < firstArea.top + firstArea.height; y++) {
        for (let x = firstArea.left; x < firstArea.left + firstArea.width; x++) {
          const i = (y * img.width + x) * 4;
          px.push([img.data[i]!, img.data[i + 1]!, img.data[i + 2]!]);
        }
      }
      px.sort((a, b) => a[0]! + a[1]! + a[2]! - (b[0]! + b[1]! + b[2]!));
      const core = px.slice(0, Math.ceil(px.length * 0.03));
      return [0, 1, 2].map((c) => core.reduce((s, p) => s + p[c]!, 0) / core.length);
    };
    const [oldInk, newInk] = [ink(before), ink(after)];
    assert.ok(newInk.every((v, c) => Math.abs(v - oldInk[c]!) < 40), `ink ${newInk} vs ${oldInk}`);

    const text = await ocrText(after, 'en');
    for (const p of PARAGRAPHS) assert.ok(wordAccuracy(p.toUpperCase(), text) >= 0.9, text);
  });
});

describe('transparency', () => {
  it('keeps a transparent background transparent and draws dark text on it (OCR stand-in with the drawn boxes)', async () => {
    const canvas = createCanvas(500, 200);
    const ctx = canvas.getContext('2d');
    ctx.font = '30px sans-serif';
    ctx.fillStyle = '#000000';
    ctx.fillText('The house is very big.', 20, 60);
    const m = ctx.measureText('The house is very big.');
    ctx.fillStyle = '#ff0000';
    ctx.fillRect(0, 150, 500, 50);
    const box = { left: 20, top: Math.floor(60 - m.actualBoundingBoxAscent), width: Math.ceil(m.width), height: Math.ceil(m.actualBoundingBoxAscent + m.actualBoundingBoxDescent) };
    const drawn: TextRecognizer = {
      recognize: async () => [{ text: 'The house is very big.', confidence: 95, ...box, block: 1, paragraph: 1, line: 1 }],
    };
    const doc = await createImageFormat('png', drawn).extract(await canvas.encode('png'), { targetLang: 'es' });
    const out = await decodeIsolated(await doc.rebuild(['Casa grande.']), 1e6);
    const at = (x: number, y: number) => [...out.data.subarray((y * 500 + x) * 4, (y * 500 + x) * 4 + 4)];
    assert.deepEqual(at(2, 2), [0, 0, 0, 0]);
    assert.deepEqual(at(10, 170), [255, 0, 0, 255]);
    let opaqueDark = 0;
    let opaqueOther = 0;
    for (let y = box.top; y < box.top + box.height; y++) {
      for (let x = box.left; x < box.left + box.width; x++) {
        const [r, g, b, a] = at(x, y);
        if (a! > 200) r! + g! + b! < 100 ? opaqueDark++ : opaqueOther++;
      }
    }
    assert.ok(opaqueDark > 150, `${opaqueDark} dark text pixels`);
    assert.equal(opaqueOther, 0);
    // where the old text was ("very big.") and the shorter translation does not reach, it is transparent again
    let left = 0;
    for (let y = box.top; y < box.top + box.height; y++) for (let x = box.left + 240; x < box.left + box.width; x++) if (at(x, y)[3]! > 0) left++;
    assert.equal(left, 0);
  });
});

describe('orientation', () => {
  it('applies a JPEG EXIF orientation: text is recognized and painted upright, the result is stored upright', async () => {
    const jpg = fixture('sample.jpg');
    // APP1 Exif with Orientation = 6 (rotate 90° clockwise to display)
    const tiff = Buffer.from([0x49, 0x49, 0x2a, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]);
    const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
    const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, 0, payload.length + 2]), payload]);
    const rotated = Buffer.concat([jpg.subarray(0, 2), app1, jpg.subarray(2)]);
    let seen: RgbImage | undefined;
    const stub: TextRecognizer = {
      recognize: async (image) => {
        seen = image;
        return [{ text: 'Word', confidence: 95, left: 10, top: 10, width: 60, height: 20, block: 1, paragraph: 1, line: 1 }];
      },
    };
    const doc = await createImageFormat('jpeg', stub).extract(rotated, { targetLang: 'es' });
    assert.deepEqual([seen!.width, seen!.height], [400, 640]);
    assert.deepEqual(readImageHeader(await doc.rebuild(['Palabra'])), { type: 'jpeg', width: 400, height: 640 });
  });
});

describe('files the image formats refuse', () => {
  const png = createImageFormat('png', noOcr);
  const refuses = async (input: Buffer, message: RegExp) => {
    await assert.rejects(Promise.resolve().then(() => png.extract(input, { targetLang: 'es' })), (err: Error) => {
      assert.ok(err instanceof DocumentFormatError, String(err));
      assert.match(err.message, message);
      return true;
    });
  };
  const pngHeader = (width: number, height: number) => {
    const ihdr = Buffer.alloc(25);
    ihdr.writeUInt32BE(13, 0);
    ihdr.write('IHDR', 4, 'latin1');
    ihdr.writeUInt32BE(width, 8);
    ihdr.writeUInt32BE(height, 12);
    ihdr.set([8, 6, 0, 0, 0], 16);
    return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr]);
  };

  it('refuses bytes that are no image, and an empty file', async () => {
    await refuses(Buffer.alloc(0), /not a PNG or JPEG image/);
    await refuses(Buffer.from('The house is big.'), /not a PNG or JPEG image/);
    await refuses(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46]), /JPEG image is damaged/);
  });

  it('refuses an image whose header claims too many pixels or none, before decoding it', async () => {
    await refuses(pngHeader(100_000, 100_000), /too large: 100000×100000 pixels; at most 25 megapixels/);
    await refuses(pngHeader(0, 10), /empty/);
    // a JPEG frame header (SOF0) of 65535×65535
    const sof = Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0xff, 0xff, 0xff, 0xff, 0x03]);
    await refuses(Buffer.concat([sof, Buffer.alloc(16)]), /too large: 65535×65535/);
  });

  it('refuses damaged image data; the decoder crash stays in its child process', async () => {
    // this makes Skia's PNG decoder crash (SIGSEGV) in process: the server must survive it
    const damaged = Buffer.concat([fixture('sample.png').subarray(0, 33), Buffer.alloc(100, 7)]);
    await refuses(damaged, /could not be decoded/);
  });

  it('answers "No text found in the image." for an image without text', async () => {
    const canvas = createCanvas(400, 300);
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#e8f0ff';
    ctx.fillRect(0, 0, 400, 300);
    ctx.fillStyle = '#3366cc';
    ctx.fillRect(100, 100, 200, 40); // a shape is not text
    const blank = createImageFormat('png', tesseract);
    await assert.rejects(Promise.resolve(blank.extract(await canvas.encode('png'), { targetLang: 'es' })), (err: Error) => {
      assert.ok(err instanceof DocumentFormatError);
      assert.equal(err.message, NO_TEXT_FOUND);
      return true;
    });
  });
});

describe('registry', () => {
  it('serves png, jpeg and jpg with their content types', () => {
    const formats = new DocumentFormats();
    const png = formats.forFileName('scan.PNG');
    const jpg = formats.forFileName('photo.jpg');
    assert.ok(png && png !== 'planned' && jpg && jpg !== 'planned');
    assert.equal(png.contentType, 'image/png');
    assert.equal(jpg.contentType, 'image/jpeg');
    assert.equal(formats.forFileName('photo.jpeg'), jpg);
    assert.equal(png.maxBytes, 10 * 1024 * 1024);
  });
});

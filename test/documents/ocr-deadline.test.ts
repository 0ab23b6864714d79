// Tesseract runs end at their deadline, beyond their memory limit and when the document job they work for ends (a hung
// stand-in command).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { DocumentFormatError } from '../../src/documents/formats/format.js';
import { TesseractRecognizer } from '../../src/documents/ocr/tesseract-recognizer.js';
import { hungCommand } from '../helpers/fake-command.js';

// answers the language list like tesseract, then hangs on any recognition
const hung = hungCommand(`if [ "$1" = --list-langs ]; then echo 'List of available languages (1):'; echo eng; exit 0; fi`);
after(() => hung.remove());
const image = { width: 2, height: 2, rgb: Buffer.alloc(12, 255) };

describe('tesseract child processes', () => {
  it('are killed at the deadline, with a clear error', async () => {
    const ocr = new TesseractRecognizer({ command: hung.path, timeoutMs: 200 });
    await assert.rejects(ocr.recognize(image, 'en'), (err: unknown) => err instanceof DocumentFormatError && /took longer than 0.2 s/.test(err.message));
    assert.ok(await hung.gone());
  });

  it('are killed when they grow beyond their memory limit', async () => {
    const ocr = new TesseractRecognizer({ command: hung.path, timeoutMs: 60_000, maxRssBytes: 1 });
    await assert.rejects(ocr.recognize(image, 'en'), /needed more than 0 MB of memory/);
    assert.ok(await hung.gone());
  });

  it('are killed when the job they work for ends', async () => {
    const ocr = new TesseractRecognizer({ command: hung.path, timeoutMs: 60_000 });
    const job = new AbortController();
    const running = ocr.recognize(image, 'en', job.signal);
    await hung.started();
    job.abort();
    await assert.rejects(running, /cancelled/);
    assert.ok(await hung.gone());
  });
});

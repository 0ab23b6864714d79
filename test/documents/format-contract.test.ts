// Every registered document format runs the format contract on its sample file.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { DocumentFormats } from '../../src/documents/formats/index.js';
import { runFormatContract, type FormatContractSetup } from './format.case.js';
import { buildIdml } from './idml-fixture.js';

const FIXTURES = new URL('../../../test/fixtures/documents/', import.meta.url);
const formats = new DocumentFormats();

/** The sample files of each format id. */
const SAMPLES: Record<string, string[]> = {
  txt: ['sample.txt'],
  srt: ['sample.srt'],
  json: ['sample.json'],
  html: ['sample.html'],
  xml: ['sample.xml'],
  xliff: ['sample-1.2.xlf', 'sample-2.0.xlf', 'sample-2.1.xlf'],
  dita: ['sample-topic.dita', 'sample-concept.dita'],
  pdf: ['sample.pdf'],
  docx: ['sample.docx', 'rich.docx'],
  pptx: ['sample.pptx'],
  xlsx: ['sample.xlsx'],
  mif: ['sample.mif'],
  png: ['sample.png'],
  jpeg: ['sample.jpg'],
};

/** Bilingual formats keep the source: their translation is read from the file's text (the targets). */
const OVERRIDES: Record<string, Partial<FormatContractSetup>> = {
  xliff: { translatedText: (out) => out.toString('utf8') },
  // every damaged copy is a full pdf.js parse
  pdf: { fuzzCases: 12 },
  // OCR reads text back approximately, and each readable damaged copy costs a Tesseract run
  png: { approximate: true, fuzzCases: 6, billsNothing: true },
  jpeg: { approximate: true, fuzzCases: 6, billsNothing: true },
};

for (const [id, files] of Object.entries(SAMPLES)) {
  for (const file of files) {
    runFormatContract(`${id} (${file})`, () => {
      const format = formats.byId(id);
      if (!format) throw new Error(`format ${id} is not registered`);
      return { format, sample: readFileSync(new URL(file, FIXTURES)), ...OVERRIDES[id] };
    });
  }
}

// The IDML sample is a package the fixture builder zips (test/documents/idml-fixture.ts).
runFormatContract('idml (built sample)', async () => ({ format: formats.byId('idml')!, sample: await buildIdml() }));

it('every registered format has a sample file here, so each runs the contract', () => {
  assert.deepEqual(formats.all().map((f) => f.id).filter((id) => !(id in SAMPLES) && id !== 'idml'), []);
});

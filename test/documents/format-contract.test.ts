// Every registered document format runs the format contract on its sample file.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { DocumentFormats } from '../../src/documents/formats/index.js';
import { runFormatContract } from './format.case.js';

const FIXTURES = new URL('../../../test/fixtures/documents/', import.meta.url);
const formats = new DocumentFormats();

/** The sample file of each format id. */
const SAMPLES: Record<string, string> = {
  txt: 'sample.txt',
  srt: 'sample.srt',
  json: 'sample.json',
  html: 'sample.html',
  xml: 'sample.xml',
};

for (const [id, file] of Object.entries(SAMPLES)) {
  runFormatContract(id, () => {
    const format = formats.byId(id);
    if (!format) throw new Error(`format ${id} is not registered`);
    return { format, sample: readFileSync(new URL(file, FIXTURES)) };
  });
}

it('every registered format has a sample file here, so each runs the contract', () => {
  assert.deepEqual(formats.all().map((f) => f.id).filter((id) => !(id in SAMPLES)), []);
});

// Documents as people really write them, at the format level: what reaches the engine and what comes back.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { srtFormat } from '../../src/documents/formats/srt.js';

const ES = { targetLang: 'es' };

describe('srt dialogue', () => {
  it('sends each speaker alone and without the dash; reflows each speaker over its own lines', async () => {
    const src = '1\n00:00:01,000 --> 00:00:03,000\n- Get your diploma,\nI\'ll get mine.\n- What you doing?\n\n2\n00:00:04,000 --> 00:00:05,000\n-5 degrees\noutside and cold.\n';
    const doc = await srtFormat.extract(Buffer.from(src), ES);
    assert.deepEqual(doc.segments.map((s) => s.text), ["Get your diploma, I'll get mine.", 'What you doing?', '-5 degrees outside and cold.']);
    const out = (await doc.rebuild(['Consigue tu diploma, yo conseguiré el mío.', '¿Qué haces?', '-5 grados fuera y frío.'])).toString('utf8');
    assert.equal(out, '1\n00:00:01,000 --> 00:00:03,000\n- Consigue tu diploma,\nyo conseguiré el mío.\n- ¿Qué haces?\n\n2\n00:00:04,000 --> 00:00:05,000\n-5 grados\nfuera y frío.\n');
    assert.equal((await doc.rebuild(doc.segments.map((s) => s.text))).toString('utf8'), src);
  });
});

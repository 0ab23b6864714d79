// PocketSphinx's pool of idle decoders (~95 MiB each): kept for the next session, freed once idle for decoderIdleMs,
// so that memory comes back after a burst of voice sessions (issue 31).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { PocketSphinxEngine } from '../../src/voice/stt/pocketsphinx.js';
import type { RecognizerEvent, SpeechRecognizer } from '../../src/voice/stt/engine.js';
import { waitFor } from '../helpers/wait.js';
import { synthesize } from './voice-helpers.js';

const IDLE_MS = 1500;

async function transcribe(r: SpeechRecognizer, pcm: Buffer): Promise<string> {
  const audio = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length));
  const events: RecognizerEvent[] = [];
  for (let i = 0; i < audio.length; i += 1600) events.push(...(await r.write(audio.subarray(i, i + 1600))));
  events.push(...(await r.finish()));
  return events.filter((e) => e.kind === 'final').map((e) => e.segment.text).join(' ');
}

describe('PocketSphinx idle decoders', { skip: !PocketSphinxEngine.available() && 'PocketSphinx is not installed' }, () => {
  it('frees the pooled decoders once they have been idle for decoderIdleMs', async () => {
    const engine = new PocketSphinxEngine({ decoderIdleMs: IDLE_MS });
    try {
      const sessions = await Promise.all([engine.createRecognizer('en'), engine.createRecognizer('en')]);
      for (const s of sessions) s.release();
      await waitFor('both released decoders in the pool', () => engine.idleDecoders === 2);
      await waitFor('the idle pool emptied', () => engine.idleDecoders === 0);
    } finally {
      await engine.close();
    }
  });

  it('keeps a decoder taken back from the pool before its idle time ends, and it still recognises', async () => {
    const engine = new PocketSphinxEngine({ decoderIdleMs: IDLE_MS });
    try {
      (await engine.createRecognizer('en')).release();
      await waitFor('the released decoder in the pool', () => engine.idleDecoders === 1);
      const second = await engine.createRecognizer('en');
      assert.equal(engine.idleDecoders, 0, 'the session took the pooled decoder');
      // Past the idle time the taken decoder's expiry must not free it under the session.
      await sleep(IDLE_MS * 2);
      assert.match(await transcribe(second, synthesize('The weather is nice today.')), /weather/);
      second.release();
    } finally {
      await engine.close();
    }
  });
});

// ffmpeg must exit soon after its input ends; a stand-in that hangs is killed at that deadline with a clear error,
// and killing a stream (its session ended) ends the process at once.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createDecoder, createEncoder } from '../../src/voice/audio/ffmpeg.js';
import { hungCommand } from '../helpers/fake-command.js';
import { withDeadline } from '../helpers/wait.js';

const hung = hungCommand();
after(() => hung.remove());

describe('ffmpeg child processes', () => {
  it('are killed when they do not finish in time after the end of the input', async () => {
    let end!: () => void;
    const ended = new Promise<string | null>((resolve) => {
      const decoder = createDecoder('ogg', { ffmpegPath: hung.path, finishTimeoutMs: 200, onData: () => {}, onEnd: resolve });
      decoder.write(Buffer.alloc(64));
      end = () => decoder.end();
    });
    // the deadline counts from the end of the input, which comes once the process is running
    await hung.started();
    end();
    assert.match((await withDeadline('the decoder to end', ended)) ?? '', /did not finish within 0.2 s/);
    assert.ok(await hung.gone());
  });

  it('are killed, without a report, when their session ends', async () => {
    let reported = false;
    const encoder = createEncoder(16000, ['-f', 'mp3'], { ffmpegPath: hung.path, onData: () => {}, onEnd: () => (reported = true) });
    await hung.started();
    encoder.kill();
    assert.ok(await hung.gone());
    assert.equal(reported, false);
  });
});

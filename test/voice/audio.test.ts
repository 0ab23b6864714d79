// Audio helpers: G.711 round trips, resampling, content-type parsing and speaker pitch.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { alawDecode, alawEncode, resample, StreamResampler, ulawDecode, ulawEncode } from '../../src/voice/audio/pcm.js';
import { parseSourceMedia, parseTargetMedia } from '../../src/voice/audio/media-types.js';
import { PitchTracker } from '../../src/voice/audio/pitch.js';
import { TargetMediaWriter, type MediaChunk } from '../../src/voice/tts/target-media.js';
import { synthesize } from './voice-helpers.js';

function sine(n: number, hz: number, rate: number, amp = 10000): Int16Array {
  return Int16Array.from({ length: n }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * hz * i) / rate)));
}

describe('voice audio', () => {
  it('G.711 A-law and µ-law round trip within the codec step', () => {
    const s = sine(800, 440, 8000);
    for (const [enc, dec] of [[alawEncode, alawDecode], [ulawEncode, ulawDecode]] as const) {
      const back = dec(enc(s));
      for (let i = 0; i < s.length; i++) assert.ok(Math.abs(back[i]! - s[i]!) <= Math.max(16, Math.abs(s[i]!) / 16), `${s[i]} → ${back[i]}`);
    }
  });

  it('resamples without drift across stream chunks', () => {
    const s = sine(48000, 300, 48000);
    assert.equal(resample(s, 48000, 16000).length, 16000);
    const r = new StreamResampler(44100, 16000);
    let total = 0;
    for (let i = 0; i < 44100; i += 1234) total += r.push(s.subarray(i, Math.min(44100, i + 1234))).length;
    assert.ok(Math.abs(total - 16000) <= 1, String(total));
  });

  it('parses the reference content types and refuses others', () => {
    assert.deepEqual(parseSourceMedia('audio/pcm; encoding=s16le; rate=16000'), {
      kind: 'pcm', contentType: 'audio/pcm; encoding=s16le; rate=16000', encoding: 's16le', rate: 16000,
    });
    assert.equal(parseSourceMedia('audio/pcm;encoding=alaw;rate=16000'), null);
    assert.equal(parseSourceMedia('audio/webm;codecs=vorbis'), null);
    assert.equal(parseSourceMedia('audio/x-matroska;codecs=mp3')?.kind, 'container');
    assert.equal(parseTargetMedia('audio/webm;codecs=opus;')?.kind, 'ffmpeg');
    assert.equal(parseTargetMedia('audio/pcm;encoding=s16le;rate=24000')?.kind, 'pcm');
    assert.equal(parseTargetMedia('audio/pcm;encoding=s16le;rate=8000'), null);
    for (const t of ['audio/flac', 'video/mp2t;codecs=aac', 'video/mp2t;codecs=opus', 'audio/ogg', 'audio/ogg;codecs=flac', 'audio/opus', 'audio/webm', 'audio/x-matroska;codecs=aac', 'audio/x-matroska;codecs=flac', 'audio/x-matroska;codecs=opus']) {
      assert.ok(parseTargetMedia(t), t);
    }
  });

  it('tells a low voice from a high one by pitch (target_media_voice "match")', () => {
    const hz = (pcm: Buffer) => {
      const t = new PitchTracker();
      t.push(new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2));
      return t.medianHz()!;
    };
    const male = hz(synthesize('This is a short test of the voice.', 'rms'));
    const female = hz(synthesize('This is a short test of the voice.', 'slt'));
    console.log(`# median F0: rms ${male.toFixed(0)} Hz, slt ${female.toFixed(0)} Hz`);
    assert.ok(male < 165 && female >= 165, `${male} / ${female}`);
  });

  it('raw Opus output starts with the OpusHead header packet; durations add up', async () => {
    const chunks: MediaChunk[] = [];
    const writer = new TargetMediaWriter(parseTargetMedia('audio/opus')!, (c) => chunks.push(c));
    writer.speak(sine(16000, 220, 16000), 16000, 'one');
    writer.speak(sine(8000, 330, 16000), 16000, 'two');
    assert.equal(await writer.finish(), null);
    assert.equal(chunks[0]!.content_type, 'audio/opus');
    assert.equal(chunks[0]!.headers, 1);
    assert.equal(chunks[0]!.data[0]!.subarray(0, 8).toString('ascii'), 'OpusHead');
    assert.equal(chunks[0]!.text, 'one');
    assert.ok(chunks.flatMap((c) => c.data).every((p) => p.length < 1500), 'packets, not pages');
    const total = chunks.reduce((n, c) => n + c.duration, 0);
    assert.ok(Math.abs(total - 1500) <= 40, String(total));
  });
});

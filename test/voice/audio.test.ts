// Audio helpers: G.711 round trips, resampling, content-type parsing and speaker pitch.
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { alawDecode, alawEncode, resample, samplesToS16le, ulawDecode, ulawEncode } from '../../src/voice/audio/pcm.js';
import { parseSourceMedia, parseTargetMedia } from '../../src/voice/audio/media-types.js';
import { PitchTracker } from '../../src/voice/audio/pitch.js';
import { TargetMediaWriter, type MediaChunk } from '../../src/voice/tts/target-media.js';
import { ClockLost, FlacClock, MatroskaClock, MpegTsClock, type StreamClock } from '../../src/voice/tts/media-clock.js';
import { sniffContainer } from '../../src/voice/audio/sniff.js';
import { createResampler } from '../../src/voice/audio/ffmpeg.js';
import { atRate, encode, synthesize } from './voice-helpers.js';
import { waitFor } from '../helpers/wait.js';

/** Media time covered by a (possibly cut-off) encoded stream, from ffprobe's packet timestamps. */
function probeMs(data: Buffer): number {
  const out = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'packet=pts_time,duration_time', '-of', 'csv=p=0', 'pipe:0'], { input: data }).toString();
  const packets = out.trim().split('\n').filter(Boolean).map((l) => l.split(',').map(Number) as [number, number]);
  if (packets.length === 0) return 0;
  // a muxer that stores no packet duration (AAC in Matroska): the spacing of the packets
  const spacing = packets.length > 1 ? (packets.at(-1)![0] - packets[0]![0]) / (packets.length - 1) : 0;
  const end = Math.max(...packets.map(([pts, d]) => pts + (Number.isFinite(d) ? d : spacing)));
  return Math.round((end - Math.min(...packets.map(([pts]) => pts))) * 1000);
}

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

  it('resamples to the expected length', () => {
    assert.equal(resample(sine(48000, 300, 48000), 48000, 16000).length, 16000);
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
    // the first segment's audio is out (its text on it) before the second arrives; spoken together, a slow encoder
    // puts both texts on its first chunk
    await waitFor('encoded audio of the first segment', () => chunks.some((c) => c.text === 'one'));
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

  // Every encoded target format: chunk durations come from the container's own timing and add up to the speech, and
  // each segment's text rides on the chunk its speech starts in (WebM, FLAC and MPEG-TS used to put all of an
  // utterance's duration on whichever output came first).
  for (const type of ['audio/webm', 'audio/x-matroska;codecs=aac', 'audio/x-matroska;codecs=flac', 'audio/flac', 'video/mp2t;codecs=aac', 'video/mp2t;codecs=opus', 'audio/ogg', 'audio/ogg;codecs=flac', 'audio/opus']) {
    it(`${type}: per-chunk durations and texts follow the encoded audio`, async () => {
      const media = parseTargetMedia(type)!;
      assert.equal(media.kind, 'ffmpeg');
      const frame = media.kind === 'ffmpeg' ? media.frameMs : 0;
      const chunks: MediaChunk[] = [];
      const writer = new TargetMediaWriter(media, (c) => chunks.push(c));
      writer.speak(sine(16000, 220, 16000), 16000, 'one');
      // the encoder has put out audio of the first segment (its text rides on it) before the second arrives
      await waitFor('encoded audio of the first segment', () => chunks.some((c) => c.text === 'one'));
      const beforeTwo = chunks.length;
      writer.speak(sine(8000, 330, 16000), 16000, 'two');
      assert.equal(await writer.finish(), null);
      assert.ok(beforeTwo > 0 && chunks.length > beforeTwo, `output before and after the second segment (${beforeTwo}/${chunks.length})`);
      assert.equal(chunks[0]!.content_type, type);
      const total = chunks.reduce((n, c) => n + c.duration, 0);
      assert.ok(Math.abs(total - 1500) <= frame + 10, `total ${total}`);
      const texts = chunks.flatMap((c) => (c.text === undefined ? [] : [c.text]));
      assert.deepEqual(texts, ['one', 'two']);
      const startOf = (text: string) => {
        const i = chunks.findIndex((c) => c.text === text);
        const before = chunks.slice(0, i).reduce((n, c) => n + c.duration, 0);
        return { before, after: before + chunks[i]!.duration };
      };
      const one = startOf('one');
      assert.ok(one.before === 0 && one.after > 0, `'one' on the first chunk with audio: ${JSON.stringify(one)}`);
      const two = startOf('two');
      assert.ok(two.before <= 1000 + frame && two.after > 1000 - frame, `'two' starts at 1000 ms, inside its chunk: ${JSON.stringify(two)}`);
      // what the chunks before 'two' hold, measured by ffprobe on their bytes, is what they reported
      const i = chunks.findIndex((c) => c.text === 'two');
      if (type === 'audio/opus') return; // bare Opus packets: nothing ffprobe reads (the Ogg Opus case covers them)
      const held = probeMs(Buffer.concat(chunks.slice(0, i).flatMap((c) => c.data)));
      assert.ok(Math.abs(two.before - held) <= frame + 10, `chunks before 'two' report ${two.before} ms and hold ${held} ms`);
    });
  }

  it('the container clocks survive random and corrupted streams: ClockLost or a time that never goes back', () => {
    const encode = (args: string[], rate: number) =>
      execFileSync('ffmpeg', ['-v', 'error', '-f', 's16le', '-ar', String(rate), '-ac', '1', '-i', 'pipe:0', ...args, 'pipe:1'], {
        input: Buffer.from(samplesToS16le(sine(rate, 220, rate))),
      });
    const streams: [string, () => StreamClock, Buffer][] = [
      ['matroska', () => new MatroskaClock(20), encode(['-c:a', 'libopus', '-f', 'webm'], 48000)],
      ['flac', () => new FlacClock(24000), encode(['-c:a', 'flac', '-f', 'flac'], 24000)],
      ['mpegts', () => new MpegTsClock(20), encode(['-c:a', 'aac', '-f', 'mpegts', '-pes_payload_size', '0'], 24000)],
    ];
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (const [name, make, real] of streams) {
      // the real stream, in random pieces, reaches its full second
      const clock = make();
      let end = 0;
      for (let at = 0; at < real.length; ) {
        const n = 1 + Math.floor(rand() * 700);
        end = clock.push(real.subarray(at, at + n));
        at += n;
      }
      assert.ok(Math.abs(end - 1000) <= 100, `${name}: ${end} ms`);
      for (let trial = 0; trial < 200; trial++) {
        const data = trial % 2 ? Buffer.from(real) : Buffer.from(Array.from({ length: 2000 }, () => Math.floor(rand() * 256)));
        for (let k = 0; k < 20; k++) data[Math.floor(rand() * data.length)] = Math.floor(rand() * 256);
        const c = make();
        let last = 0;
        try {
          for (let at = 0; at < data.length; at += 97) {
            const t = c.push(data.subarray(at, at + 97));
            assert.ok(Number.isFinite(t) && t >= last, `${name}: time ${t} after ${last}`);
            last = t;
          }
        } catch (err) {
          if (!(err instanceof ClockLost)) throw err;
        }
      }
    }
  });

  it('PCM speech goes out in chunks of at most 200 ms, the text on the first', () => {
    const chunks: MediaChunk[] = [];
    const writer = new TargetMediaWriter(parseTargetMedia('audio/pcm;encoding=s16le;rate=24000')!, (c) => chunks.push(c));
    writer.speak(sine(16000 * 17, 220, 16000), 16000, 'seventeen seconds');
    assert.equal(chunks.length, 85);
    assert.ok(chunks.every((c) => c.duration <= 200 && c.data[0]!.length === (c.duration * 48) && c.data[0]!.length < 1 << 20));
    assert.equal(chunks.reduce((n, c) => n + c.duration, 0), 17000);
    assert.deepEqual(chunks.map((c) => c.text).filter(Boolean), ['seventeen seconds']);
    assert.equal(chunks[0]!.content_type, 'audio/pcm;encoding=s16le;rate=24000');
    assert.equal(chunks[1]!.content_type, undefined);
  });

  it('tells the containers apart by their first bytes, and raw PCM from MP3', () => {
    const pcm = synthesize('Hello there.');
    const cases: [string[], string][] = [
      [['-c:a', 'flac', '-f', 'flac'], 'flac'],
      [['-c:a', 'libmp3lame', '-f', 'mp3'], 'mp3'],
      [['-c:a', 'libopus', '-f', 'ogg'], 'ogg'],
      [['-c:a', 'libopus', '-f', 'webm'], 'matroska'],
      [['-c:a', 'aac', '-f', 'adts'], 'aac'],
      [['-c:a', 'aac', '-f', 'mpegts'], 'mpegts'],
      [['-f', 'wav'], 'wav'],
    ];
    for (const [args, format] of cases) assert.equal(sniffContainer(encode(pcm, args)), format, format);
    assert.equal(sniffContainer(pcm), null);
    // -1 samples look like an MPEG frame header: a second header where the frame ends is needed
    assert.equal(sniffContainer(Buffer.alloc(4096, 0xff)), null);
    assert.equal(sniffContainer(Buffer.from('Og')), 'more');
  });

  it('44.1 and 48 kHz PCM come back to 16 kHz through ffmpeg as the same signal (SNR over 25 dB)', async () => {
    const speech = synthesize('The weather is nice today.');
    for (const rate of [44100, 48000]) {
      const out: Buffer[] = [];
      const done = new Promise<string | null>((resolve) => {
        // the decoder the stream starts for PCM at other rates
        const d = createResampler(rate, { onData: (b) => out.push(b), onEnd: resolve });
        d.write(atRate(speech, rate));
        d.end();
      });
      assert.equal(await done, null);
      const back = Buffer.concat(out);
      const n = Math.min(back.length, speech.length) >> 1;
      let signal = 0;
      let noise = 0;
      for (let i = 0; i < n; i++) {
        const a = speech.readInt16LE(i * 2);
        signal += a * a;
        noise += (a - back.readInt16LE(i * 2)) ** 2;
      }
      const snr = 10 * Math.log10(signal / noise);
      assert.ok(Math.abs(back.length - speech.length) <= 64 && snr > 25, `${rate} Hz: ${back.length} vs ${speech.length} bytes, SNR ${snr.toFixed(1)} dB`);
    }
    // telephone audio (8 kHz, as G.711 decodes to) comes out at twice its length
    const out: Buffer[] = [];
    await new Promise((resolve) => {
      const d = createResampler(8000, { onData: (b) => out.push(b), onEnd: resolve });
      d.write(Buffer.alloc(16000));
      d.end();
    });
    assert.equal(Buffer.concat(out).length, 32000);
  });
});

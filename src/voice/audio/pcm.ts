// In-process PCM helpers: G.711 A-law/µ-law codecs, resampling and WAV parsing, so raw telephony and PCM audio
// needs no child process.

export function ulawDecode(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const u = ~bytes[i]! & 0xff;
    const sign = u & 0x80;
    const exponent = (u >> 4) & 0x07;
    const mantissa = u & 0x0f;
    const magnitude = (((mantissa << 3) + 0x84) << exponent) - 0x84;
    out[i] = sign ? -magnitude : magnitude;
  }
  return out;
}

export function alawDecode(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const a = bytes[i]! ^ 0x55;
    const sign = a & 0x80;
    const exponent = (a >> 4) & 0x07;
    const mantissa = a & 0x0f;
    let magnitude = exponent === 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1);
    out[i] = sign ? magnitude : -magnitude;
    magnitude = 0;
  }
  return out;
}

export function ulawEncode(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    let s = samples[i]!;
    const sign = s < 0 ? 0x80 : 0;
    if (s < 0) s = -s;
    s = Math.min(s, 32635) + 0x84;
    let exponent = 7;
    for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
    const mantissa = (s >> (exponent + 3)) & 0x0f;
    out[i] = ~(sign | (exponent << 4) | mantissa) & 0xff;
  }
  return out;
}

export function alawEncode(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    let s = samples[i]!;
    const sign = s >= 0 ? 0x80 : 0;
    if (s < 0) s = -s - 1;
    s = Math.min(s, 32767);
    let byte: number;
    if (s < 256) byte = s >> 4;
    else {
      let exponent = 7;
      for (let mask = 0x4000; (s & mask) === 0 && exponent > 1; mask >>= 1) exponent--;
      byte = (exponent << 4) | ((s >> (exponent + 3)) & 0x0f);
    }
    out[i] = (byte | sign) ^ 0x55;
  }
  return out;
}

/** Little-endian s16 bytes → samples (copies when unaligned). */
export function s16leToSamples(bytes: Uint8Array): Int16Array {
  const n = bytes.length >> 1;
  if (bytes.byteOffset % 2 === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, n).slice();
  const out = new Int16Array(n);
  const view = new DataView(bytes.buffer, bytes.byteOffset, n * 2);
  for (let i = 0; i < n; i++) out[i] = view.getInt16(i * 2, true);
  return out;
}

export function samplesToS16le(samples: Int16Array): Buffer {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}

/**
 * Resamples mono s16 audio (synthesized speech to the target rate; source audio is resampled by ffmpeg). Downsampling averages the input window under each output sample (a crude low-pass
 * that keeps aliasing out of the recogniser's band); upsampling interpolates linearly.
 */
export function resample(input: Int16Array, fromRate: number, toRate: number): Int16Array {
  if (fromRate === toRate || input.length === 0) return input;
  const ratio = fromRate / toRate;
  const outLength = Math.floor(input.length / ratio);
  const out = new Int16Array(outLength);
  if (ratio > 1) {
    for (let i = 0; i < outLength; i++) {
      const start = Math.floor(i * ratio);
      const end = Math.min(input.length, Math.max(start + 1, Math.floor((i + 1) * ratio)));
      let sum = 0;
      for (let j = start; j < end; j++) sum += input[j]!;
      out[i] = Math.round(sum / (end - start));
    }
  } else {
    for (let i = 0; i < outLength; i++) {
      const pos = i * ratio;
      const j = Math.floor(pos);
      const frac = pos - j;
      const a = input[j]!;
      const b = input[Math.min(j + 1, input.length - 1)]!;
      out[i] = Math.round(a + (b - a) * frac);
    }
  }
  return out;
}

export interface WavAudio {
  sampleRate: number;
  channels: number;
  samples: Int16Array;
}

/** Parses a PCM s16 WAV file (as written by espeak-ng and flite; a streamed header may carry a bogus size). */
export function parseWav(buf: Buffer): WavAudio {
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a WAV file');
  }
  let offset = 12;
  let sampleRate = 0;
  let channels = 1;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    if (id === 'fmt ') {
      channels = buf.readUInt16LE(offset + 10);
      sampleRate = buf.readUInt32LE(offset + 12);
    } else if (id === 'data') {
      const end = Math.min(buf.length, offset + 8 + size);
      const data = buf.subarray(offset + 8, end - ((end - offset - 8) % 2));
      return { sampleRate, channels, samples: s16leToSamples(data) };
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error('WAV file without data');
}

// Speaker pitch from 16 kHz PCM (normalised autocorrelation over voiced frames), for target_media_voice "match".

const FRAME = 640; // 40 ms at 16 kHz
const MIN_LAG = 16000 / 400; // 400 Hz
const MAX_LAG = 16000 / 70; // 70 Hz
/** Median F0 under this (Hz) sounds like a typical male voice. */
export const MALE_FEMALE_BOUNDARY_HZ = 165;

export class PitchTracker {
  private readonly f0s: number[] = [];
  private carry = new Int16Array(0);

  /** Feeds samples until enough voiced frames were seen (about 3 s of speech). */
  push(samples: Int16Array): void {
    if (this.f0s.length >= 75) return;
    const joined = new Int16Array(this.carry.length + samples.length);
    joined.set(this.carry);
    joined.set(samples, this.carry.length);
    let offset = 0;
    for (; offset + FRAME <= joined.length; offset += FRAME) {
      const f0 = frameF0(joined.subarray(offset, offset + FRAME));
      if (f0 !== null) this.f0s.push(f0);
    }
    this.carry = joined.slice(offset);
  }

  /** Median F0 in Hz, or null before any voiced frame. */
  medianHz(): number | null {
    if (this.f0s.length < 5) return null;
    const sorted = [...this.f0s].sort((a, b) => a - b);
    return sorted[sorted.length >> 1]!;
  }
}

function frameF0(frame: Int16Array): number | null {
  let energy = 0;
  for (let i = 0; i < frame.length; i++) energy += frame[i]! * frame[i]!;
  if (energy / frame.length < 500 * 500) return null; // silence or very quiet
  let bestLag = 0;
  let best = 0;
  for (let lag = MIN_LAG; lag <= MAX_LAG; lag++) {
    let num = 0;
    let e1 = 0;
    let e2 = 0;
    for (let i = 0; i + lag < frame.length; i++) {
      num += frame[i]! * frame[i + lag]!;
      e1 += frame[i]! * frame[i]!;
      e2 += frame[i + lag]! * frame[i + lag]!;
    }
    const r = num / Math.sqrt(e1 * e2 || 1);
    if (r > best) {
      best = r;
      bestLag = lag;
    }
  }
  return best > 0.6 ? 16000 / bestLag : null;
}

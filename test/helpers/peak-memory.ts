// Resident memory of a process (the server under test), sampled while a request runs: tests of hostile input assert
// the peak stays under a stated bound, not only the outcome. Linux only (/proc), as the rest of the suite.
import { readFileSync } from 'node:fs';

export const MIB = 1024 * 1024;

/** Resident set size of `pid` in bytes (VmRSS), or 0 once the process is gone. */
export function residentBytes(pid: number = process.pid): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return kib ? Number(kib[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export interface MemorySampler {
  /** RSS when sampling began. */
  readonly baseline: number;
  /** Highest RSS seen so far. */
  peak(): number;
  /** Stops sampling (one last sample first) and returns the peak. */
  stop(): number;
}

/**
 * Samples `pid`'s RSS every `intervalMs` until stopped. A sampler in the test process sees the same spikes as the
 * server's own (/proc is read from outside, so a busy event loop in the server cannot hide one).
 */
export function sampleMemory(pid: number = process.pid, intervalMs = 20): MemorySampler {
  const baseline = residentBytes(pid);
  let peak = baseline;
  const sample = () => {
    peak = Math.max(peak, residentBytes(pid));
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    baseline,
    peak: () => peak,
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/** Peak RSS above the baseline, in MiB, for messages. */
export function growthMib(sampler: MemorySampler): number {
  return Math.round((sampler.peak() - sampler.baseline) / MIB);
}

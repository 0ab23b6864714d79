// The one-at-a-time queue of a Whisper engine (whisper.cpp's single decoding state, sherpa-onnx's recogniser): calls
// run in turn, a concluding call ahead of every waiting partial one (a partial result is worth less than a late
// final one), and each call's time is kept, since the recogniser spaces partial results by it.

export type TranscriptionKind = 'partial' | 'final';

export class TranscriptionQueue {
  private readonly waiting: { kind: TranscriptionKind; run: () => Promise<void> }[] = [];
  private running: Promise<void> | null = null;
  /** How long the latest call took. */
  private lastCallMs = 0;
  /** Calls made and the time they took (the benchmark's measure of the engine's load). */
  readonly stats = { calls: 0, busyMs: 0 };

  constructor(private readonly partialEveryMs: number) {}

  /** Runs `call` in its turn; a `partial` call waits behind every concluding one. */
  run<T>(kind: TranscriptionKind, call: () => Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      const job = { kind, run: () => this.timed(call).then(resolve, reject) };
      const at = kind === 'final' ? this.waiting.findIndex((j) => j.kind === 'partial') : -1;
      this.waiting.splice(at < 0 ? this.waiting.length : at, 0, job);
      this.next();
    });
  }

  /** Nothing running or waiting to. */
  idle(): boolean {
    return this.running === null && this.waiting.length === 0;
  }

  /**
   * A call's cost follows the utterance and grows with it: partial results are spaced to at least twice the time the
   * latest call took, so that they never take more than half the engine.
   */
  partialIntervalMs(): number {
    return Math.max(this.partialEveryMs, 2 * this.lastCallMs);
  }

  /** Resolves once nothing runs (before the engine frees what the calls use). */
  async drained(): Promise<void> {
    while (this.running) await this.running;
  }

  private async timed<T>(call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await call();
    this.lastCallMs = performance.now() - started;
    this.stats.calls++;
    this.stats.busyMs += this.lastCallMs;
    return result;
  }

  private next(): void {
    if (this.running) return;
    const job = this.waiting.shift();
    if (!job) return;
    this.running = job.run().finally(() => {
      this.running = null;
      this.next();
    });
  }
}

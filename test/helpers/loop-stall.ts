// Finds requests that stall the event loop: a 10 ms timer measures how late it fires. A late timer counts as a stall
// only when this process also spent more than the threshold on the CPU meanwhile, so a test machine that merely
// descheduled the process (shared cores) is not taken for blocking work, and a slow machine still sees real blocking.
export interface Stall {
  lagMs: number;
  cpuMs: number;
}

export class LoopStallMonitor {
  private readonly timer: NodeJS.Timeout;
  private last = performance.now();
  private lastCpu = process.cpuUsage();
  private worstStall: Stall | undefined;

  constructor(
    private readonly thresholdMs: number,
    intervalMs = 10,
  ) {
    this.timer = setInterval(() => {
      const now = performance.now();
      const cpu = process.cpuUsage(this.lastCpu);
      const lagMs = Math.round(now - this.last - intervalMs);
      const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
      if (this.isStall(lagMs, cpuMs)) this.worstStall = { lagMs, cpuMs };
      this.last = now;
      this.lastCpu = process.cpuUsage();
    }, intervalMs);
  }

  private isStall(lagMs: number, cpuMs: number): boolean {
    return lagMs > this.thresholdMs && cpuMs > this.thresholdMs && lagMs > (this.worstStall?.lagMs ?? 0);
  }

  /** Starts a new measurement window: a stall that began before is not counted. */
  reset(): void {
    this.worstStall = undefined;
    this.last = performance.now();
    this.lastCpu = process.cpuUsage();
  }

  /** The worst stall since the last reset, measured up to now (the pending timer's lateness included). */
  worst(): Stall | undefined {
    const lagMs = Math.round(performance.now() - this.last);
    const cpu = process.cpuUsage(this.lastCpu);
    const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
    if (this.isStall(lagMs, cpuMs)) return { lagMs, cpuMs };
    return this.worstStall;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

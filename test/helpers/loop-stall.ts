// Finds requests that stall the event loop: a 10 ms timer measures how late it fires. A late timer counts as a stall
// only when the main thread also spent more than the threshold on the CPU meanwhile, so a test machine that merely
// descheduled the process (shared cores) is not taken for blocking work, nor is the work of worker threads, and a
// slow machine still sees real blocking.
import { readFileSync } from 'node:fs';

export interface Stall {
  lagMs: number;
  /** CPU time of the main thread meanwhile. */
  cpuMs: number;
}

/** Milliseconds of CPU the main thread (whose thread id is the process id on Linux) has used; 10 ms resolution. */
function mainThreadCpuMs(): number {
  try {
    // utime and stime, in clock ticks (100 a second), are fields 14 and 15; the name before them may hold spaces
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    // not Linux: the whole process, worker threads included
    const cpu = process.cpuUsage();
    return (cpu.user + cpu.system) / 1000;
  }
}

export class LoopStallMonitor {
  private readonly timer: NodeJS.Timeout;
  private last = performance.now();
  private lastCpuMs = mainThreadCpuMs();
  private worstStall: Stall | undefined;

  constructor(
    private readonly thresholdMs: number,
    intervalMs = 10,
  ) {
    this.timer = setInterval(() => {
      const now = performance.now();
      const lagMs = Math.round(now - this.last - intervalMs);
      const cpuMs = this.cpuSince();
      if (this.isStall(lagMs, cpuMs)) this.worstStall = { lagMs, cpuMs };
      this.last = now;
      this.lastCpuMs = mainThreadCpuMs();
    }, intervalMs);
  }

  private cpuSince(): number {
    return Math.round(mainThreadCpuMs() - this.lastCpuMs);
  }

  private isStall(lagMs: number, cpuMs: number): boolean {
    return lagMs > this.thresholdMs && cpuMs > this.thresholdMs && lagMs > (this.worstStall?.lagMs ?? 0);
  }

  /** Starts a new measurement window: a stall that began before is not counted. */
  reset(): void {
    this.worstStall = undefined;
    this.last = performance.now();
    this.lastCpuMs = mainThreadCpuMs();
  }

  /** The worst stall since the last reset, measured up to now (the pending timer's lateness included). */
  worst(): Stall | undefined {
    const lagMs = Math.round(performance.now() - this.last);
    const cpuMs = this.cpuSince();
    if (this.isStall(lagMs, cpuMs)) return { lagMs, cpuMs };
    return this.worstStall;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

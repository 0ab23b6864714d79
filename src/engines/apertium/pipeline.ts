// One warm Apertium pipeline: every stage a child process in null-flush mode; blocks end with `\0` and their
// outputs come back in order, one `\0` each, so several blocks (of one or more requests) may be in flight at once.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { EngineError } from '../engine.js';
import { isHmmTagger, TaggerRelay } from './tagger-relay.js';
import { withTaggerShim, type TaggerReset } from './tagger-shim.js';

export type { TaggerReset };


let nextId = 1;

interface Pending {
  resolve: (out: string) => void;
  reject: (err: Error) => void;
}

/**
 * Spawns the stages of one mode and translates already-deformatted blocks. run() may be called again before earlier
 * calls have resolved (the pool bounds how much is in flight); answers are matched to blocks by order.
 */
export class ApertiumPipeline {
  readonly id = nextId++;
  readonly procs: ChildProcess[] = [];
  private readonly pending: Pending[] = [];
  private buffered: Buffer[] = [];
  private outbox = '';
  private flushScheduled = false;
  private dead = false;
  private deathReason = '';
  private stderrTail = '';
  private readonly exitWaiters: Promise<void>[] = [];
  /** Set by the owner; called once when any stage exits or the pipeline is killed. */
  onDeath: ((reason: string) => void) | undefined;
  lastUsed = Date.now();
  /** Requests and input bytes currently in flight (kept by the pool). */
  inflight = 0;
  inflightBytes = 0;
  translatedBlocks = 0;
  readonly startedAt = Date.now();
  /** Resident memory of the stages at the first sweep after a translation (the periodic check's baseline). */
  firstRss: number | undefined;
  /** Set when this pipeline takes no new requests and is closed once its requests are answered. */
  retiring: string | undefined;

  /** Carries the HMM tagger stage, when the mode has one (see tagger-relay.ts). */
  private relay: TaggerRelay | undefined;
  private relayAt = 0;

  constructor(readonly modeName: string, stages: string[][], reset: TaggerReset = { kind: 'relay' }) {
    const env = { ...process.env, LC_ALL: process.env.LC_ALL ?? 'C.UTF-8' };
    const hmm = stages.findIndex((argv, i) => i > 0 && i < stages.length - 1 && isHmmTagger(argv));
    const tagger = reset.kind === 'relay' ? hmm : -1;
    let prevOut: Readable | null = null;
    for (const [i, argv] of stages.entries()) {
      if (i === tagger) continue;
      const [cmd, ...args] = argv;
      const last = i === stages.length - 1;
      const stageEnv = i === hmm && reset.kind === 'shim' ? withTaggerShim(env, reset.path) : env;
      const child: ChildProcess = spawn(cmd!, args, { stdio: [prevOut ?? 'pipe', 'pipe', 'pipe'], env: stageEnv });
      // the parent's copy of the pipe between stages must be closed so EOF and SIGPIPE propagate
      if (prevOut) prevOut.destroy();
      this.exitWaiters.push(new Promise((resolve) => child.once('close', () => resolve())));
      child.once('error', (err: Error) => this.die(`stage ${i} (${cmd}) failed to start: ${err.message}`));
      child.once('exit', (code: number | null, signal: NodeJS.Signals | null) => this.die(`stage ${i} (${cmd}) exited (code ${code}, signal ${signal})`));
      child.stderr!.on('data', (d: Buffer) => this.noteStderr(d.toString('utf8')));
      child.stdin?.on('error', () => {});
      this.procs.push(child);
      prevOut = last || i === tagger - 1 ? null : child.stdout!;
      if (tagger > 0 && i === tagger + 1) {
        this.relayAt = tagger;
        this.startRelay(stages[tagger]!, env, this.procs[tagger - 1]!, child);
      }
    }
    const out = this.procs[this.procs.length - 1]!.stdout!;
    out.on('data', (chunk: Buffer) => this.onData(chunk));
    out.on('error', () => {});
  }

  private startRelay(argv: string[], env: NodeJS.ProcessEnv, before: ChildProcess, after: ChildProcess): void {
    const relay = new TaggerRelay({
      argv,
      env,
      sink: after.stdin!,
      onFatal: (reason) => this.die(reason),
      onStderr: (text) => this.noteStderr(text),
    });
    this.relay = relay;
    before.stdout!.on('data', (chunk: Buffer) => relay.write(chunk));
    before.stdout!.on('error', () => {});
  }

  private noteStderr(text: string): void {
    this.stderrTail = (this.stderrTail + text).slice(-500);
  }

  /** Taggers replaced because their state changed (diagnostics, tests). */
  get taggerRestarts(): number {
    return this.relay?.restarts ?? 0;
  }

  get busy(): boolean {
    return this.inflight > 0;
  }

  get alive(): boolean {
    return !this.dead;
  }

  get pids(): number[] {
    const own = this.procs.map((p) => p.pid).filter((p): p is number => typeof p === 'number');
    // in stage order: the taggers stand where the tagger stage is
    return this.relay ? [...own.slice(0, this.relayAt), ...this.relay.pids, ...own.slice(this.relayAt)] : own;
  }

  /** Sum of VmRSS of all stages, in bytes (0 for stages already gone). */
  rssBytes(): number {
    let total = 0;
    for (const pid of this.pids) {
      try {
        const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        if (m) total += Number(m[1]) * 1024;
      } catch {
        // process gone
      }
    }
    return total;
  }

  /** Sends deformatted blocks (each ends with its own `\0`) and resolves with the raw output of each, in order. */
  run(blocks: string[]): Promise<string[]> {
    if (this.dead) return Promise.reject(new EngineError('failed', `apertium pipeline ${this.modeName} is dead: ${this.deathReason}`));
    this.lastUsed = Date.now();
    const results = blocks.map(
      () => new Promise<string>((resolve, reject) => this.pending.push({ resolve, reject })),
    );
    // Blocks of requests arriving in the same event-loop turn go out in one write: fewer syscalls and wake-ups.
    this.outbox += blocks.map((b) => `${b}\0`).join('');
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    return Promise.all(results).finally(() => {
      this.lastUsed = Date.now();
      this.translatedBlocks += blocks.length;
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const data = this.outbox;
    this.outbox = '';
    if (data && !this.dead) this.procs[0]!.stdin!.write(data);
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    for (let i = chunk.indexOf(0); i >= 0; i = chunk.indexOf(0, start)) {
      this.buffered.push(chunk.subarray(start, i));
      start = i + 1;
      const text = Buffer.concat(this.buffered).toString('utf8');
      this.buffered = [];
      const p = this.pending.shift();
      if (!p) {
        // output nobody asked for: the stream is out of sync, the pipeline cannot be trusted any more
        this.kill(`unexpected output from ${this.modeName}`);
        return;
      }
      p.resolve(text);
    }
    if (start < chunk.length) this.buffered.push(chunk.subarray(start));
  }

  private die(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    this.deathReason = this.stderrTail ? `${reason}; stderr: ${this.stderrTail.trim()}` : reason;
    const err = new EngineError('failed', `apertium pipeline ${this.modeName} died: ${this.deathReason}`);
    for (const p of this.pending.splice(0)) p.reject(err);
    for (const child of this.procs) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    this.relay?.kill();
    this.onDeath?.(reason);
  }

  get lastError(): string {
    return this.deathReason;
  }

  /** Kills every stage now; pending blocks reject with EngineError('failed'). */
  kill(reason = 'killed'): void {
    this.die(reason);
  }

  /** Kills the stages and waits until all of them are gone. */
  async close(): Promise<void> {
    this.die('closed');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...this.exitWaiters, ...(this.relay?.exited() ?? [])]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, 2000);
      }),
    ]);
    clearTimeout(timer);
  }
}

// Keeps the HMM tagger stage of a warm pipeline stateless between blocks. apertium-tagger -g overwrites its open class
// (the tags it gives unknown words) whenever a word's ambiguity class is missing from its model (tagger_utils.cc,
// find_similar_ambiguity_class assigns through a reference), so every later block would be tagged differently. With -d
// it reports that on stderr: the relay then forwards the block that caused it, switches to a fresh tagger started in
// advance and feeds that one every block the old tagger had received after it.

import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';

const STATE_CHANGED = 'A new ambiguity class was found';

/** True for a stage the relay should carry: the HMM tagger, run with -g and -d (see mode-discovery.ts). */
export function isHmmTagger(argv: readonly string[]): boolean {
  return path.basename(argv[0] ?? '') === 'apertium-tagger' && argv.includes('-g') && argv.includes('-d');
}

/**
 * A FIFO for the taggers' stderr, opened twice: non-blocking for this process to read synchronously the moment a
 * block's output arrives (a tagger writes its warning before that output), and once more for the children to write to
 * (spawning makes a child's stdio blocking, which must not reach our reading end). The name is removed at once.
 */
function openStderrFifo(): { read: number; write: number } {
  const dir = mkdtempSync(path.join(tmpdir(), 'tolk-tagger-'));
  try {
    const file = path.join(dir, 'stderr');
    execFileSync('mkfifo', ['-m', '600', file]);
    const read = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    return { read, write: openSync(file, constants.O_WRONLY) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface TaggerRelayOptions {
  argv: string[];
  env: NodeJS.ProcessEnv;
  /** stdin of the stage after the tagger. */
  sink: Writable;
  /** The tagger in use (or its successor) died on its own: the pipeline cannot go on. */
  onFatal: (reason: string) => void;
  /** Everything the taggers wrote to stderr, for diagnostics. */
  onStderr: (text: string) => void;
}

export class TaggerRelay {
  private active: ChildProcess;
  private spare: ChildProcess;
  private readonly stderrFd: { read: number; write: number };
  private readonly readBuf = Buffer.alloc(16_384);
  /** Input from the previous stage not yet cut into a whole block. */
  private partialIn: Buffer[] = [];
  /** Whole blocks (each ending in `\0`) not yet sent to the active tagger. */
  private queue: Buffer[] = [];
  /** Blocks sent to the active tagger whose output has not come back yet, oldest first. */
  private sent: Buffer[] = [];
  private partialOut: Buffer[] = [];
  private stderrText = '';
  private closed = false;
  /** Every tagger started and not yet gone (replaced ones included), for close. */
  private readonly running = new Map<ChildProcess, Promise<void>>();
  /** Taggers replaced because their state changed (diagnostics, tests). */
  restarts = 0;

  constructor(private readonly opts: TaggerRelayOptions) {
    this.stderrFd = openStderrFifo();
    this.active = this.spawnTagger();
    this.spare = this.spawnTagger();
  }

  get pids(): number[] {
    return [this.active.pid, this.spare.pid].filter((p): p is number => typeof p === 'number');
  }

  private spawnTagger(): ChildProcess {
    const [cmd, ...args] = this.opts.argv;
    const child = spawn(cmd!, args, { stdio: ['pipe', 'pipe', this.stderrFd.write], env: this.opts.env });
    child.stdin!.on('error', () => {});
    this.running.set(child, new Promise((resolve) => child.once('close', () => {
      this.running.delete(child);
      resolve();
    })));
    child.stdout!.on('data', (chunk: Buffer) => {
      if (child === this.active) this.onOutput(chunk);
    });
    const fatal = (reason: string) => {
      if (!this.closed && (child === this.active || child === this.spare)) this.opts.onFatal(`tagger ${reason}`);
    };
    child.once('error', (err: Error) => fatal(`failed to start: ${err.message}`));
    child.once('exit', (code, signal) => fatal(`exited (code ${code}, signal ${signal})`));
    return child;
  }

  /** Output of the stage before the tagger. */
  write(chunk: Buffer): void {
    let start = 0;
    for (let i = chunk.indexOf(0); i >= 0; i = chunk.indexOf(0, start)) {
      this.partialIn.push(chunk.subarray(start, i + 1));
      this.queue.push(Buffer.concat(this.partialIn));
      this.partialIn = [];
      start = i + 1;
    }
    if (start < chunk.length) this.partialIn.push(chunk.subarray(start));
    this.pump();
  }

  private pump(): void {
    if (this.queue.length === 0 || this.closed) return;
    const blocks = this.queue;
    this.queue = [];
    this.sent.push(...blocks);
    this.active.stdin!.write(blocks.length === 1 ? blocks[0]! : Buffer.concat(blocks));
  }

  private onOutput(chunk: Buffer): void {
    let start = 0;
    for (let i = chunk.indexOf(0); i >= 0; i = chunk.indexOf(0, start)) {
      this.partialOut.push(chunk.subarray(start, i + 1));
      const block = Buffer.concat(this.partialOut);
      this.partialOut = [];
      start = i + 1;
      this.sent.shift();
      this.opts.sink.write(block);
      if (this.stateChanged()) {
        // the rest of this chunk came from the changed tagger: dropped, its blocks go to the fresh one
        this.replaceTagger();
        return;
      }
    }
    if (start < chunk.length) this.partialOut.push(chunk.subarray(start));
  }

  /** Reads what the taggers wrote to stderr so far; true when the active one reported a state change. */
  private stateChanged(): boolean {
    let text = '';
    for (;;) {
      let n = 0;
      try {
        n = readSync(this.stderrFd.read, this.readBuf, 0, this.readBuf.length, null);
      } catch {
        break; // EAGAIN: nothing more
      }
      if (n <= 0) break;
      text += this.readBuf.toString('utf8', 0, n);
    }
    if (!text) return false;
    this.opts.onStderr(text);
    const seen = this.stderrText + text;
    this.stderrText = seen.slice(-STATE_CHANGED.length);
    return seen.includes(STATE_CHANGED);
  }

  private replaceTagger(): void {
    const old = this.active;
    this.active = this.spare;
    this.spare = this.spawnTagger();
    old.kill('SIGKILL');
    this.restarts++;
    this.partialOut = [];
    this.stderrText = '';
    this.queue = [...this.sent, ...this.queue];
    this.sent = [];
    this.pump();
  }

  kill(): void {
    if (this.closed) return;
    this.closed = true;
    for (const child of [this.active, this.spare]) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    closeSync(this.stderrFd.read);
    closeSync(this.stderrFd.write);
  }

  /** One promise per tagger still running, resolved when it is gone. */
  exited(): Promise<void>[] {
    return [...this.running.values()];
  }
}

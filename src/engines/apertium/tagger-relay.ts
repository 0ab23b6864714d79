// Keeps the HMM tagger stage of a warm pipeline stateless between blocks. apertium-tagger -g overwrites its open class
// (the tags it gives unknown words) whenever a word's ambiguity class is missing from its model (tagger_utils.cc,
// find_similar_ambiguity_class assigns through a reference), so every later block would be tagged differently. With -d
// it reports that on stderr. The relay checks every block's output against what a fresh tagger would give (see
// sameAsFresh); when it cannot be sure, it switches to a fresh tagger started in advance and feeds that one the block
// and every later one the old tagger had received. Taggers are started by a small shell (tagger-spawner.ts), not by
// forking this process. A switch still costs one tagger start (~4 ms CPU, mostly loading its libraries).

import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { TaggerSpawner, type SpawnedTagger } from './tagger-spawner.js';

/** The line of the tagger's -d report that names a missing ambiguity class (tagger_utils.cc). */
const CLASS_LINE = /New ambiguity class: (\{[^\n]*\})\n/g;

/** True when an analysed block holds an unknown word (`^form/*form$`): a separator `/` not escaped, then `*`. */
export function hasUnknownWord(block: Buffer): boolean {
  for (let i = block.indexOf('/*'); i >= 0; i = block.indexOf('/*', i + 1)) {
    let backslashes = 0;
    while (i - backslashes - 1 >= 0 && block[i - backslashes - 1] === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return true;
  }
  return false;
}

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
  private readonly spawner: TaggerSpawner;
  private active: SpawnedTagger;
  /** Started after a switch once the re-fed block is through, so its start does not delay that block. */
  private spare: SpawnedTagger | undefined;
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
  /** Missing classes the active tagger met since it started (its open class is then narrower than a fresh one's). */
  private readonly absorbed = new Set<string>();
  private closed = false;
  /** Every tagger started and not yet gone (replaced ones included), for close. */
  private readonly running = new Set<SpawnedTagger>();
  /** Taggers replaced because their state changed (diagnostics, tests). */
  restarts = 0;

  constructor(private readonly opts: TaggerRelayOptions) {
    this.stderrFd = openStderrFifo();
    this.spawner = new TaggerSpawner(opts.argv, opts.env, this.stderrFd.write, (reason) => opts.onFatal(reason));
    this.active = this.spawnTagger();
    this.spare = this.spawnTagger();
  }

  get pids(): number[] {
    return [this.active.pid, this.spare?.pid].filter((p): p is number => typeof p === 'number');
  }

  private spawnTagger(): SpawnedTagger {
    const tagger: SpawnedTagger = this.spawner.start(
      (chunk) => {
        if (tagger === this.active) this.onOutput(chunk);
      },
      (reason) => {
        if (!this.closed && (tagger === this.active || tagger === this.spare)) this.opts.onFatal(`tagger ${reason}`);
      },
    );
    this.running.add(tagger);
    void tagger.closed.then(() => this.running.delete(tagger));
    return tagger;
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
    this.active.write(blocks.length === 1 ? blocks[0]! : Buffer.concat(blocks));
  }

  private onOutput(chunk: Buffer): void {
    let start = 0;
    for (let i = chunk.indexOf(0); i >= 0; i = chunk.indexOf(0, start)) {
      this.partialOut.push(chunk.subarray(start, i + 1));
      const block = Buffer.concat(this.partialOut);
      this.partialOut = [];
      start = i + 1;
      const input = this.sent.shift()!;
      const met = this.newClasses();
      if (!this.sameAsFresh(input, met)) {
        // this block and the rest of the chunk came from a changed tagger: dropped, they go to a fresh one
        this.sent.unshift(input);
        this.replaceTagger();
        return;
      }
      for (const c of met) this.absorbed.add(c);
      this.opts.sink.write(block);
      this.spare ??= this.spawnTagger();
    }
    if (start < chunk.length) this.partialOut.push(chunk.subarray(start));
  }

  /**
   * Whether the active tagger gave this block what a fresh one would. A fresh one always does. One that absorbed
   * missing classes has a narrower open class: unknown words would get other tags, and a missing class other than the
   * one it absorbed would be resolved from there. A class it absorbed resolves to the same class again (the open class
   * already is the smallest fitting one), so a block whose first missing class is that one, or that has none and no
   * unknown word, is tagged as from fresh.
   */
  private sameAsFresh(input: Buffer, met: string[]): boolean {
    if (this.absorbed.size === 0) return true;
    if (hasUnknownWord(input)) return false;
    return met.length === 0 || (this.absorbed.size === 1 && this.absorbed.has(met[0]!));
  }

  /**
   * Missing ambiguity classes the taggers reported since the last call, in order. Read at a block's output, this holds
   * every report of that block and earlier ones (each is written before the block's output), maybe some of the next.
   */
  private newClasses(): string[] {
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
    if (!text) return [];
    this.opts.onStderr(text);
    const seen = this.stderrText + text;
    const classes: string[] = [];
    let end = 0;
    for (const m of seen.matchAll(CLASS_LINE)) {
      classes.push(m[1]!);
      end = m.index + m[0].length;
    }
    // keep an unfinished report for the next read
    this.stderrText = seen.slice(end).slice(-4096);
    return classes;
  }

  private replaceTagger(): void {
    const old = this.active;
    this.active = this.spare ?? this.spawnTagger();
    this.spare = undefined;
    old.kill();
    this.restarts++;
    this.partialOut = [];
    this.stderrText = '';
    this.absorbed.clear();
    this.queue = [...this.sent, ...this.queue];
    this.sent = [];
    this.pump();
  }

  kill(): void {
    if (this.closed) return;
    this.closed = true;
    for (const tagger of this.running) tagger.kill();
    this.spawner.close();
    closeSync(this.stderrFd.read);
    closeSync(this.stderrFd.write);
  }

  /** One promise per tagger still running, resolved when it is gone. */
  exited(): Promise<void>[] {
    return [this.spawner.exited, ...[...this.running].map((t) => t.closed)];
  }
}

// Spelling checks with the real Hunspell (Debian's `hunspell` and `hunspell-*` dictionaries): a small pool of warm
// processes per dictionary in pipe mode (`hunspell -a`), so German compounds and French elisions are judged as Hunspell
// does; the pool gives every request a deadline and shares the processes fairly between accounts.
import { spawn } from 'node:child_process';
import { accessSync, closeSync, constants, existsSync, openSync, readSync } from 'node:fs';
import { basename, delimiter, join } from 'node:path';
import { EngineError } from '../engines/engine.js';
import { ProcessPool, type PooledProcess } from '../engines/process-pool.js';
import { silentLogger, type Logger } from '../lib/logger.js';
import { LineProcess } from './line-process.js';

export interface WordCheck {
  correct: boolean;
  /** Hunspell's suggestions, best first (empty when correct or when it has none). */
  suggestions: string[];
}

/** Dictionary file names (without .dic/.aff) per Tolk language code, first found wins. */
const DICTIONARIES: Record<string, string[]> = {
  en: ['en_US', 'en_GB'],
  'en-us': ['en_US'],
  'en-gb': ['en_GB'],
  de: ['de_DE', 'de_AT', 'de_CH'],
  es: ['es_ES', 'es'],
  fr: ['fr_FR', 'fr'],
  it: ['it_IT'],
  pt: ['pt_PT', 'pt_BR'],
  'pt-pt': ['pt_PT'],
  'pt-br': ['pt_BR'],
};

export function findExecutable(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * One checker of a dictionary: `hunspell -a` (verdict and suggestions per word) and `hunspell -G` (only the accepted
 * words, no suggestions: ~0.1 s cheaper per rejected word in French), both warm; the pool hands it to one task at a time.
 */
class HunspellProcess implements PooledProcess {
  private readonly pipe: LineProcess;
  private readonly filter: LineProcess | undefined;

  constructor(binary: string, dictionaryPath: string, stdbuf: string | undefined) {
    this.pipe = new LineProcess(binary, ['-a', '-i', 'utf-8', '-d', dictionaryPath], 1);
    // -G writes through C stdio, block-buffered on a pipe: stdbuf makes it answer line by line.
    this.filter = stdbuf ? new LineProcess(stdbuf, ['-oL', binary, '-G', '-i', 'utf-8', '-d', dictionaryPath], 0) : undefined;
  }

  get pids(): number[] {
    return [this.pipe.pid, this.filter?.pid].filter((p): p is number => p !== undefined);
  }

  get alive(): boolean {
    return this.pipe.alive && (this.filter?.alive ?? true);
  }

  get filters(): boolean {
    return this.filter !== undefined;
  }

  async check(words: string[]): Promise<WordCheck[]> {
    // '^' makes Hunspell check the rest of the line whatever its first character is.
    this.pipe.write(words.map((w) => `^${w}\n`).join(''));
    const out: WordCheck[] = [];
    for (let i = 0; i < words.length; i++) {
      const results: string[] = [];
      for (let line = await this.pipe.nextLine(); line !== ''; line = await this.pipe.nextLine()) results.push(line);
      out.push(parseResults(results));
    }
    return out;
  }

  async accepted(words: string[], sentinel: string): Promise<Set<string>> {
    const filter = this.filter!;
    filter.write(words.filter((w) => w !== sentinel).join('\n') + `\n${sentinel}\n`);
    const accepted = new Set<string>();
    for (let line = await filter.nextLine(); line !== sentinel; line = await filter.nextLine()) accepted.add(line);
    if (words.includes(sentinel)) accepted.add(sentinel);
    return accepted;
  }

  kill(): void {
    this.pipe.kill();
    this.filter?.kill();
  }
}

/** Who asks, when they stop caring, and until when the answer is useful. */
export interface SpellCheckOptions {
  account?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Epoch ms by which the whole request must be answered. */
  deadlineAt?: number | undefined;
}

/**
 * Words go to the pool in small batches, each batch a task of its own: a long request goes back to the end of the
 * line after every batch, so an account with a backlog slows only itself. Suggestion search grows with word length
 * (a 40-letter non-word takes ~0.25 s), so checking batches are bounded in letters, not only in words.
 */
const CHECK_BATCH = { words: 32, letters: 96 };
const FILTER_BATCH = { words: 256, letters: 4096 };

function* batchesOf(items: string[], limit: { words: number; letters: number }): Generator<string[]> {
  let batch: string[] = [];
  let letters = 0;
  for (const item of items) {
    if (batch.length > 0 && (batch.length >= limit.words || letters + item.length > limit.letters)) {
      yield batch;
      batch = [];
      letters = 0;
    }
    batch.push(item);
    letters += item.length;
  }
  if (batch.length > 0) yield batch;
}

/** The checkers of one dictionary: a small pool of warm processes shared round-robin between accounts. */
class DictionaryCheckers {
  private readonly pool: ProcessPool<HunspellProcess>;
  private sentinel: Promise<string | undefined> | undefined;

  constructor(
    private readonly binary: string,
    readonly dictionaryPath: string,
    stdbuf: string | undefined,
    private readonly limits: Required<Pick<HunspellOptions, 'processes' | 'timeoutMs' | 'maxAgeMs' | 'maxTasks' | 'maxRssBytes'>>,
    private readonly log: Logger,
  ) {
    this.pool = new ProcessPool({
      name: `hunspell ${basename(dictionaryPath)}`,
      create: () => new HunspellProcess(binary, dictionaryPath, stdbuf),
      size: limits.processes,
      deadlineMs: limits.timeoutMs,
      maxAgeMs: limits.maxAgeMs,
      maxTasks: limits.maxTasks,
      maxRssBytes: limits.maxRssBytes,
    });
  }

  private async batches<T>(
    items: string[],
    limit: { words: number; letters: number },
    o: SpellCheckOptions,
    task: (p: HunspellProcess, batch: string[]) => Promise<T>,
  ): Promise<T[]> {
    const deadlineAt = o.deadlineAt ?? Date.now() + this.limits.timeoutMs;
    const out: T[] = [];
    for (const batch of batchesOf(items, limit)) {
      const deadlineMs = Math.max(1, deadlineAt - Date.now());
      out.push(await this.pool.run((p) => task(p, batch), { account: o.account, signal: o.signal, deadlineMs }));
    }
    return out;
  }

  async check(words: string[], o: SpellCheckOptions): Promise<WordCheck[]> {
    const clean = words.map((w) => w.replace(/[\r\n]/g, ' '));
    return (await this.batches(clean, CHECK_BATCH, o, (p, batch) => p.check(batch))).flat();
  }

  async accepted(words: string[], o: SpellCheckOptions): Promise<Set<string>> {
    const clean = words.map((w) => w.replace(/[\r\n]/g, ' '));
    this.sentinel ??= this.findSentinel();
    const sentinel = await this.sentinel;
    if (sentinel === undefined) return this.acceptedOnce(clean, o);
    const sets = await this.batches(clean, FILTER_BATCH, o, (p, batch) => (p.filters ? p.accepted(batch, sentinel) : this.acceptedOnce(batch, o)));
    return new Set(sets.flatMap((s) => [...s]));
  }

  /**
   * `hunspell -G` only echoes accepted words, so the end of an answer is marked by a word the dictionary accepts.
   * Which words those are differs per dictionary (German rejects digits, Spanish punctuation), so one is picked from
   * the dictionary's own word list and confirmed once.
   */
  private async findSentinel(): Promise<string | undefined> {
    let head = '';
    try {
      const fd = openSync(`${this.dictionaryPath}.dic`, 'r');
      const buf = Buffer.alloc(65536);
      head = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('latin1');
      closeSync(fd);
    } catch {
      return undefined;
    }
    const candidates = head
      .split('\n')
      .slice(1)
      .map((line) => line.split('/')[0]!.trim())
      // capitalised words too: en_US, de_DE, es_ES and fr list them (and acronyms) first
      .filter((w) => /^[A-Za-z]{4,}$/.test(w))
      .slice(0, 200);
    if (candidates.length === 0) return undefined;
    try {
      const accepted = await this.acceptedOnce(candidates, {});
      return candidates.find((w) => accepted.has(w));
    } catch {
      return undefined;
    }
  }

  /** Without stdbuf: one short-lived `hunspell -G` over the list, killed at the deadline or when the caller gives up. */
  private acceptedOnce(words: string[], o: SpellCheckOptions): Promise<Set<string>> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.binary, ['-G', '-i', 'utf-8', '-d', this.dictionaryPath], { stdio: 'pipe', env: { ...process.env, LC_ALL: 'C.UTF-8' } });
      const stop = () => child.kill('SIGKILL');
      const timer = setTimeout(stop, Math.max(1, (o.deadlineAt ?? Date.now() + this.limits.timeoutMs) - Date.now()));
      o.signal?.addEventListener('abort', stop, { once: true });
      let out = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (c: string) => (out += c));
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', stop);
        if (code === 0) resolve(new Set(out.split('\n').filter(Boolean)));
        else reject(code === null ? new EngineError('timeout', 'hunspell -G did not finish in time') : new Error(`hunspell -G exited with code ${code}`));
      });
      child.stdin.on('error', () => {});
      child.stdin.end(words.join('\n') + '\n');
    });
  }

  pids(): number[] {
    return this.pool.pids();
  }

  get replaced(): ProcessPool<HunspellProcess>['replaced'] {
    return this.pool.replaced;
  }

  close(): void {
    this.pool.close();
  }

  logFailure(err: unknown): void {
    this.log.warn({ err, dictionary: this.dictionaryPath }, 'hunspell failed');
  }
}

/**
 * One word sent may come back as several results when Hunspell splits it; it is misspelled only when there is exactly
 * one result and that says so (a split word is left alone).
 */
function parseResults(results: string[]): WordCheck {
  if (results.length !== 1) return { correct: true, suggestions: [] };
  const r = results[0]!;
  if (r.startsWith('&')) {
    const colon = r.indexOf(': ');
    return { correct: false, suggestions: colon === -1 ? [] : r.slice(colon + 2).split(', ').filter(Boolean) };
  }
  if (r.startsWith('#')) return { correct: false, suggestions: [] };
  return { correct: true, suggestions: [] };
}

export interface HunspellOptions {
  /** Where the .dic/.aff files are; default /usr/share/hunspell. */
  dictionaryDir?: string;
  /** The hunspell binary; default found on PATH. */
  binary?: string;
  logger?: Logger;
  /** Warm checkers per dictionary; default 2 (one account holds at most all but one while another waits). */
  processes?: number;
  /** A request's default deadline; default 10 s. */
  timeoutMs?: number;
  /** A checker is replaced after this long (default 1 h), this many batches (default 20,000) or this resident size (default 256 MB). */
  maxAgeMs?: number;
  maxTasks?: number;
  maxRssBytes?: number;
}

/** The spell checkers of every installed dictionary, started on first use. */
export class Hunspell {
  private readonly processes = new Map<string, DictionaryCheckers>();
  private readonly available = new Map<string, string>();

  constructor(options: HunspellOptions = {}) {
    const dir = options.dictionaryDir ?? '/usr/share/hunspell';
    const binary = options.binary ?? findExecutable('hunspell');
    const log = options.logger ?? silentLogger;
    if (!binary) {
      log.info({}, 'hunspell not found on PATH: /v2/write/correct only works through a language-model engine');
      return;
    }
    for (const [lang, names] of Object.entries(DICTIONARIES)) {
      const name = names.find((n) => existsSync(join(dir, `${n}.dic`)) && existsSync(join(dir, `${n}.aff`)));
      if (name) this.available.set(lang, join(dir, name));
    }
    const stdbuf = findExecutable('stdbuf');
    const limits = {
      processes: options.processes ?? 2,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxAgeMs: options.maxAgeMs ?? 3_600_000,
      maxTasks: options.maxTasks ?? 20_000,
      maxRssBytes: options.maxRssBytes ?? 256 * 1024 * 1024,
    };
    for (const path of new Set(this.available.values())) this.processes.set(path, new DictionaryCheckers(binary, path, stdbuf, limits, log));
  }

  /** Tolk codes with an installed dictionary. */
  languages(): string[] {
    return [...this.available.keys()].sort();
  }

  /** The dictionary for a language: the exact variant, else its base. */
  has(lang: string): boolean {
    return this.resolve(lang) !== undefined;
  }

  private resolve(lang: string): DictionaryCheckers | undefined {
    const path = this.available.get(lang) ?? this.available.get(lang.split('-')[0]!);
    return path === undefined ? undefined : this.processes.get(path);
  }

  async check(lang: string, words: string[], options: SpellCheckOptions = {}): Promise<WordCheck[]> {
    const proc = this.resolve(lang);
    if (!proc) throw new Error(`no dictionary for ${lang}`);
    if (words.length === 0) return [];
    return this.logged(proc, options, () => proc.check(words, options));
  }

  async accepted(lang: string, words: string[], options: SpellCheckOptions = {}): Promise<Set<string>> {
    const proc = this.resolve(lang);
    if (!proc) throw new Error(`no dictionary for ${lang}`);
    if (words.length === 0) return new Set();
    return this.logged(proc, options, () => proc.accepted(words, options));
  }

  /** Failures are logged, except a request its client abandoned or that ran out of time (those are answered). */
  private async logged<T>(proc: DictionaryCheckers, options: SpellCheckOptions, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (!options.signal?.aborted && !(err instanceof EngineError && (err.kind === 'timeout' || err.kind === 'overloaded'))) proc.logFailure(err);
      throw err;
    }
  }

  /** Process ids of running checkers (tests check they end on close). */
  pids(): number[] {
    return [...this.processes.values()].flatMap((p) => p.pids());
  }

  /** Checkers replaced so far per reason, summed over the dictionaries. */
  replaced(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const p of this.processes.values()) for (const [k, v] of Object.entries(p.replaced)) out[k] = (out[k] ?? 0) + v;
    return out;
  }

  close(): void {
    for (const p of this.processes.values()) p.close();
  }
}

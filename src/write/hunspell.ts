// Spelling checks with the real Hunspell (Debian's `hunspell` and `hunspell-*` dictionaries): one warm process per
// dictionary in pipe mode (`hunspell -a`), so German compounds and French elisions are judged as Hunspell does.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { accessSync, closeSync, constants, existsSync, openSync, readSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { silentLogger, type Logger } from '../lib/logger.js';

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

/** A long-running line-oriented child process: serialised requests, restarted after it dies. */
class LineProcess {
  private child: ChildProcessWithoutNullStreams | undefined;
  private buffer = '';
  private lines: string[] = [];
  private waiter: (() => void) | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private failure: Error | undefined;

  constructor(
    private readonly command: string,
    private readonly args: string[],
    /** Lines the process prints once at start (a banner) and that are skipped. */
    private readonly bannerLines: number,
  ) {}

  private ensureStarted(): { child: ChildProcessWithoutNullStreams; fresh: boolean } {
    if (this.child && !this.failure) return { child: this.child, fresh: false };
    this.failure = undefined;
    this.buffer = '';
    this.lines = [];
    const child = spawn(this.command, this.args, { stdio: 'pipe', env: { ...process.env, LC_ALL: 'C.UTF-8' } });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      const parts = this.buffer.split('\n');
      this.buffer = parts.pop()!;
      this.lines.push(...parts);
      this.waiter?.();
    });
    const fail = (err: Error) => {
      if (this.child !== child) return; // a replaced process
      this.failure = err;
      this.child = undefined;
      this.waiter?.();
    };
    child.on('error', fail);
    child.on('exit', (code) => fail(new Error(`${this.command} exited with code ${code}`)));
    child.stdin.on('error', () => {});
    this.child = child;
    return { child, fresh: true };
  }

  async nextLine(): Promise<string> {
    for (;;) {
      if (this.lines.length > 0) return this.lines.shift()!;
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.waiter = resolve));
      this.waiter = undefined;
    }
  }

  /** Runs `exchange` alone on the process: it writes its input and reads its answer lines. */
  run<T>(exchange: (write: (text: string) => void) => Promise<T>): Promise<T> {
    const task = this.queue.then(async () => {
      const { child, fresh } = this.ensureStarted();
      if (fresh) for (let i = 0; i < this.bannerLines; i++) await this.nextLine();
      return exchange((text) => child.stdin.write(text));
    });
    this.queue = task.catch(() => {});
    return task;
  }

  close(): void {
    const child = this.child;
    this.child = undefined;
    if (child) {
      child.stdin.end();
      child.kill();
    }
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }
}

/**
 * The checkers of one dictionary: `hunspell -a` (verdict and suggestions per word) and `hunspell -G` (only the
 * accepted words, no suggestions: ~0.1 s cheaper per rejected word in French), each warm.
 */
class DictionaryCheckers {
  private readonly pipe: LineProcess;
  private readonly filter: LineProcess | undefined;
  private sentinel: Promise<string | undefined> | undefined;

  constructor(
    private readonly binary: string,
    readonly dictionaryPath: string,
    stdbuf: string | undefined,
    private readonly log: Logger,
  ) {
    this.pipe = new LineProcess(binary, ['-a', '-i', 'utf-8', '-d', dictionaryPath], 1);
    // -G writes through C stdio, block-buffered on a pipe: stdbuf makes it answer line by line.
    this.filter = stdbuf ? new LineProcess(stdbuf, ['-oL', binary, '-G', '-i', 'utf-8', '-d', dictionaryPath], 0) : undefined;
  }

  check(words: string[]): Promise<WordCheck[]> {
    return this.pipe.run(async (write) => {
      // '^' makes Hunspell check the rest of the line whatever its first character is.
      write(words.map((w) => `^${w.replace(/[\r\n]/g, ' ')}\n`).join(''));
      const out: WordCheck[] = [];
      for (let i = 0; i < words.length; i++) {
        const results: string[] = [];
        for (let line = await this.pipe.nextLine(); line !== ''; line = await this.pipe.nextLine()) results.push(line);
        out.push(parseResults(results));
      }
      return out;
    });
  }

  async accepted(words: string[]): Promise<Set<string>> {
    const clean = words.map((w) => w.replace(/[\r\n]/g, ' '));
    const filter = this.filter;
    this.sentinel ??= this.findSentinel();
    const sentinel = await this.sentinel;
    if (!filter || sentinel === undefined) return this.acceptedOnce(clean);
    return filter.run(async (write) => {
      write(clean.filter((w) => w !== sentinel).join('\n') + `\n${sentinel}\n`);
      const accepted = new Set<string>();
      for (let line = await filter.nextLine(); line !== sentinel; line = await filter.nextLine()) accepted.add(line);
      if (clean.includes(sentinel)) accepted.add(sentinel);
      return accepted;
    });
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
      .filter((w) => /^[a-z]{4,}$/.test(w))
      .slice(0, 200);
    if (candidates.length === 0) return undefined;
    try {
      const accepted = await this.acceptedOnce(candidates);
      return candidates.find((w) => accepted.has(w));
    } catch {
      return undefined;
    }
  }

  /** Without stdbuf: one short-lived `hunspell -G` over the list. */
  private acceptedOnce(words: string[]): Promise<Set<string>> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.binary, ['-G', '-i', 'utf-8', '-d', this.dictionaryPath], { stdio: 'pipe', env: { ...process.env, LC_ALL: 'C.UTF-8' } });
      let out = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (c: string) => (out += c));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(new Set(out.split('\n').filter(Boolean))) : reject(new Error(`hunspell -G exited with code ${code}`))));
      child.stdin.on('error', () => {});
      child.stdin.end(words.join('\n') + '\n');
    });
  }

  pids(): number[] {
    return [this.pipe.pid, this.filter?.pid].filter((p): p is number => p !== undefined);
  }

  close(): void {
    this.pipe.close();
    this.filter?.close();
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
    for (const path of new Set(this.available.values())) this.processes.set(path, new DictionaryCheckers(binary, path, stdbuf, log));
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

  async check(lang: string, words: string[]): Promise<WordCheck[]> {
    const proc = this.resolve(lang);
    if (!proc) throw new Error(`no dictionary for ${lang}`);
    if (words.length === 0) return [];
    try {
      return await proc.check(words);
    } catch (err) {
      proc.logFailure(err);
      throw err;
    }
  }

  async accepted(lang: string, words: string[]): Promise<Set<string>> {
    const proc = this.resolve(lang);
    if (!proc) throw new Error(`no dictionary for ${lang}`);
    if (words.length === 0) return new Set();
    try {
      return await proc.accepted(words);
    } catch (err) {
      proc.logFailure(err);
      throw err;
    }
  }

  /** Process ids of running checkers (tests check they end on close). */
  pids(): number[] {
    return [...this.processes.values()].flatMap((p) => p.pids());
  }

  close(): void {
    for (const p of this.processes.values()) p.close();
  }
}

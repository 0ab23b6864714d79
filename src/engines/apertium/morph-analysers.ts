// Apertium's morphological analysers as lexicons: `lt-proc -z` on a pair's `<lang>-<other>.automorf.bin` says which
// words of a text the language's dictionary knows (an unknown word comes back as `^word/*word$`; a multiword unit
// such as Catalan "Bon dia" as one known unit). One warm process per language, started on first use, each request
// under a deadline (the process is killed and replaced past it).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ProcessPool, type PooledProcess } from '../process-pool.js';
import { baseOf, toTolkCode } from './language-codes.js';

/** `eng-spa.automorf.bin`: the analyser of the pair's source side (variants such as `eco-fr-es` are left out). */
const ANALYSER_FILE = /^([a-z]{2,3})-([a-z]{2,3})\.automorf\.bin$/;

/** The analyser file per Tolk base language under Apertium's data directory (one per language, the first found). */
export function findAnalysers(apertiumDir: string): Map<string, string> {
  const found = new Map<string, string>();
  let packages: string[];
  try {
    packages = readdirSync(apertiumDir).filter((name) => name.startsWith('apertium-')).sort();
  } catch {
    return found;
  }
  for (const pkg of packages) {
    let files: string[];
    try {
      files = readdirSync(join(apertiumDir, pkg)).sort();
    } catch {
      continue;
    }
    for (const file of files) {
      const m = ANALYSER_FILE.exec(file);
      const lang = m ? toTolkCode(m[1]!) : null;
      if (lang && !found.has(baseOf(lang))) found.set(baseOf(lang), join(apertiumDir, pkg, file));
    }
  }
  return found;
}

/** One `lt-proc -z`: a text ending in NUL in, its analysis ending in NUL out. */
class AnalyserProcess implements PooledProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = '';
  private waiter: (() => void) | undefined;
  private failure: Error | undefined;

  constructor(file: string) {
    this.child = spawn('lt-proc', ['-z', file], { stdio: 'pipe', env: { ...process.env, LC_ALL: 'C.UTF-8' } });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.waiter?.();
    });
    const fail = (err: Error) => {
      this.failure ??= err;
      this.waiter?.();
    };
    this.child.on('error', fail);
    this.child.on('exit', (code, signal) => fail(new Error(`lt-proc exited (code ${code}, signal ${signal})`)));
    this.child.stdin.on('error', () => {});
  }

  get pids(): number[] {
    return this.child.pid === undefined ? [] : [this.child.pid];
  }

  get alive(): boolean {
    return this.failure === undefined;
  }

  kill(): void {
    this.failure ??= new Error('lt-proc killed');
    this.child.kill('SIGKILL');
  }

  async analyse(text: string): Promise<string> {
    this.child.stdin.write(`${text.replace(/\0/g, ' ')}\0`);
    for (;;) {
      const end = this.buffer.indexOf('\0');
      if (end >= 0) {
        const out = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 1);
        return out;
      }
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.waiter = resolve));
      this.waiter = undefined;
    }
  }
}

/** Of a `lt-proc` analysis, how many words lie in units the analyser knows (a multiword unit counts each word). */
export function knownWordCount(analysis: string): number {
  let known = 0;
  for (const unit of analysis.matchAll(/\^((?:[^/$\\]|\\.)*)\/((?:[^$\\]|\\.)*)\$/g)) {
    if (unit[2]!.startsWith('*')) continue;
    known += unit[1]!.split(/\s+/).filter(Boolean).length;
  }
  return known;
}

/** How many units of an lt-proc analysis with letters are unknown ("Mae'r" is the units Mae, ' and r). */
export function unknownLetterUnits(analysis: string): number {
  let unknown = 0;
  for (const unit of analysis.matchAll(/\^((?:[^/$\\]|\\.)*)\/\*/g)) if (/\p{L}/u.test(unit[1]!)) unknown++;
  return unknown;
}

export interface MorphAnalysersOptions {
  /** Apertium's data directory (default /usr/share/apertium). */
  apertiumDir?: string;
  /** Default deadline of one lookup. */
  timeoutMs?: number;
}

/** The installed analysers, one warm `lt-proc` per language on first use. */
export class MorphAnalysers {
  private readonly files: Map<string, string>;
  private readonly pools = new Map<string, ProcessPool<AnalyserProcess>>();
  private readonly timeoutMs: number;

  private closed = false;

  constructor(options: MorphAnalysersOptions = {}) {
    this.files = findAnalysers(options.apertiumDir ?? '/usr/share/apertium');
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  /** Tolk base codes with an analyser. */
  languages(): string[] {
    return [...this.files.keys()].sort();
  }

  /** How many of the words (as one text, so multiword units are found) the language's analyser knows. */
  async knownWords(lang: string, words: readonly string[], deadlineMs = this.timeoutMs): Promise<number> {
    const file = this.files.get(lang);
    if (!file) throw new Error(`no analyser for ${lang}`);
    // closed: a late call (a warm-up or vote still under way at shutdown) must not start a process nothing would end
    if (this.closed) throw new Error('the analysers are closed');
    let pool = this.pools.get(lang);
    if (!pool) {
      pool = new ProcessPool({ name: `lt-proc ${lang}`, create: () => new AnalyserProcess(file), size: 1, maxPerAccount: 1, deadlineMs: this.timeoutMs, maxTasks: 100_000 });
      this.pools.set(lang, pool);
    }
    const analysis = await pool.run((p) => p.analyse(words.join(' ')), { deadlineMs });
    // a word with an unknown piece is unknown, though its other pieces are known ("r" of Welsh "Mae'r" in Danish)
    return Math.max(0, Math.min(knownWordCount(analysis), words.length - unknownLetterUnits(analysis)));
  }

  pids(): number[] {
    return [...this.pools.values()].flatMap((p) => p.pids());
  }

  close(): void {
    this.closed = true;
    for (const pool of this.pools.values()) pool.close();
  }
}

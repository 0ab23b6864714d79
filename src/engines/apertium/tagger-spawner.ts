// Starts the relay's taggers from a small shell instead of this process: spawning from Node forks the whole server,
// which blocked the event loop for 4-20 ms on every tagger switch (docs/benchmarks.md). The shell makes a FIFO pair
// per tagger and starts the tagger on it; this process opens the FIFOs asynchronously (libuv's thread pool).

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, mkdtempSync, open, openSync, rmSync, unlink } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

// $1 = the FIFO directory, the rest = the tagger's argv; one line per tagger to start: its id; answers "id pid".
// The tagger's stderr goes to fd 3 (the relay's stderr FIFO), which it must not keep otherwise. At the end of its input
// (or once the directory is gone) the shell waits for its taggers, which reaps them.
const SCRIPT = `dir=$1; shift
while read -r id; do
  mkfifo -m 600 "$dir/$id.in" "$dir/$id.out" 2>/dev/null || break
  "$@" >"$dir/$id.out" <"$dir/$id.in" 2>&3 3>&- &
  echo "$id $!"
done
wait`;

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** One tagger started by the spawner; written to before it is connected, its input waits. */
export class SpawnedTagger {
  pid: number | undefined;
  /** The input FIFO while this process waits for the tagger to open it. */
  opening: string | undefined;
  private input: Socket | undefined;
  private output: Socket | undefined;
  private waiting: Buffer[] = [];
  private gone = false;
  private resolveClosed!: () => void;
  readonly closed = new Promise<void>((resolve) => {
    this.resolveClosed = resolve;
  });

  constructor(
    private readonly onData: (chunk: Buffer) => void,
    /** The tagger exited or could not start (not called after kill()). */
    private readonly onExit: (reason: string) => void,
  ) {}

  attach(inFd: number, outFd: number): void {
    this.input = new Socket({ fd: inFd, readable: false, writable: true });
    this.output = new Socket({ fd: outFd, readable: true, writable: false });
    this.input.on('error', () => {});
    this.output.on('error', () => {});
    this.output.on('data', (chunk: Buffer) => {
      if (!this.gone) this.onData(chunk);
    });
    this.output.once('close', () => this.exit('exited'));
    if (this.gone) {
      this.kill();
      return this.exit('killed');
    }
    for (const b of this.waiting) this.input.write(b);
    this.waiting = [];
  }

  write(chunk: Buffer): void {
    if (this.input) this.input.write(chunk);
    else this.waiting.push(chunk);
  }

  exit(reason: string): void {
    if (!this.gone) {
      this.gone = true;
      this.onExit(reason);
    }
    this.resolveClosed();
  }

  kill(): void {
    this.gone = true;
    this.waiting = [];
    if (this.pid !== undefined) kill(this.pid);
    this.input?.destroy();
    this.output?.destroy();
    if (this.opening) {
      // a tagger killed before opening its input would leave our open waiting for ever (in the thread pool): be its
      // reader for a moment
      try {
        const fd = openSync(this.opening, constants.O_RDONLY | constants.O_NONBLOCK);
        setTimeout(() => closeSync(fd), 1000).unref();
      } catch {
        // already removed: the open failed
      }
    }
    if (!this.output) this.resolveClosed();
  }
}

export class TaggerSpawner {
  private readonly sh: ChildProcess;
  private readonly dir: string;
  private nextId = 1;
  private readonly starting = new Map<string, SpawnedTagger>();
  private lineBuf = '';
  private closed = false;

  constructor(argv: string[], env: NodeJS.ProcessEnv, stderrFd: number, onFatal: (reason: string) => void) {
    this.dir = mkdtempSync(path.join(tmpdir(), 'tolk-tagger-'));
    this.sh = spawn('sh', ['-c', SCRIPT, 'sh', this.dir, ...argv], { stdio: ['pipe', 'pipe', 'ignore', stderrFd], env });
    this.sh.stdin!.on('error', () => {});
    this.sh.stdout!.setEncoding('utf8');
    this.sh.stdout!.on('data', (text: string) => this.onLines(text));
    const fatal = (reason: string) => {
      if (this.closed) return;
      onFatal(`tagger spawner ${reason}`);
    };
    this.sh.once('error', (err: Error) => fatal(`failed to start: ${err.message}`));
    this.sh.once('exit', (code, signal) => fatal(`exited (code ${code}, signal ${signal})`));
  }

  /** The spawner's own process (for close). */
  get exited(): Promise<void> {
    return new Promise((resolve) => {
      if (this.sh.exitCode !== null || this.sh.signalCode !== null) resolve();
      else this.sh.once('close', () => resolve());
    });
  }

  start(onData: (chunk: Buffer) => void, onExit: (reason: string) => void): SpawnedTagger {
    const id = String(this.nextId++);
    const tagger = new SpawnedTagger(onData, onExit);
    this.starting.set(id, tagger);
    this.sh.stdin!.write(`${id}\n`);
    return tagger;
  }

  private onLines(text: string): void {
    const lines = (this.lineBuf + text).split('\n');
    this.lineBuf = lines.pop()!;
    for (const line of lines) {
      const [id, pid] = line.split(' ');
      if (this.closed) {
        kill(Number(pid));
        continue;
      }
      const tagger = this.starting.get(id!);
      if (!tagger) continue;
      this.starting.delete(id!);
      this.connect(tagger, Number(pid), id!);
    }
  }

  /**
   * Opens the tagger's output FIFO without waiting (it writes to it before opening its input, redirections go left to
   * right), then its input, which waits for the tagger's side: once that is open, the output has its writer and cannot
   * read as ended. The names are then removed.
   */
  private connect(tagger: SpawnedTagger, pid: number, id: string): void {
    const inPath = path.join(this.dir, `${id}.in`);
    const outPath = path.join(this.dir, `${id}.out`);
    tagger.pid = pid;
    let outFd: number;
    try {
      outFd = openSync(outPath, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (err) {
      tagger.kill();
      return tagger.exit(`failed to start: ${(err as Error).message}`);
    }
    tagger.opening = inPath;
    open(inPath, constants.O_WRONLY, (err, inFd) => {
      tagger.opening = undefined;
      unlink(inPath, () => {});
      unlink(outPath, () => {});
      if (err) {
        closeSync(outFd);
        tagger.kill();
        return tagger.exit(`failed to start: ${err.message}`);
      }
      tagger.attach(inFd, outFd);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    // taggers not connected yet are killed when the shell names them (onLines); the shell then reaps them all
    this.starting.clear();
    rmSync(this.dir, { recursive: true, force: true });
    this.sh.stdin!.end();
    setTimeout(() => this.sh.kill('SIGKILL'), 2000).unref();
  }
}

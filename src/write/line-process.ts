// A long-running child process spoken to line by line (Hunspell's pipe mode): writes go to its stdin, answers are read
// one line at a time; once it has exited every read fails, and its owner (a process pool) replaces it.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/** A long-running line-oriented child process, started at once; the pool replaces it when it dies. */
export class LineProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = '';
  private lines: string[] = [];
  private waiter: (() => void) | undefined;
  private failure: Error | undefined;
  private bannerLeft: number;

  constructor(command: string, args: string[], bannerLines: number) {
    this.bannerLeft = bannerLines;
    const child = spawn(command, args, { stdio: 'pipe', env: { ...process.env, LC_ALL: 'C.UTF-8' } });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      const parts = this.buffer.split('\n');
      this.buffer = parts.pop()!;
      this.lines.push(...parts);
      this.waiter?.();
    });
    const fail = (err: Error) => {
      this.failure ??= err;
      this.waiter?.();
    };
    child.on('error', fail);
    child.on('exit', (code, signal) => fail(new Error(`${command} exited (code ${code}, signal ${signal})`)));
    child.stdin.on('error', () => {});
    this.child = child;
  }

  get alive(): boolean {
    return this.failure === undefined;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  write(text: string): void {
    this.child.stdin.write(text);
  }

  async nextLine(): Promise<string> {
    // the banner the process prints once at start is skipped before the first answer
    for (; this.bannerLeft > 0; this.bannerLeft--) await this.readLine();
    return this.readLine();
  }

  private async readLine(): Promise<string> {
    for (;;) {
      if (this.lines.length > 0) return this.lines.shift()!;
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.waiter = resolve));
      this.waiter = undefined;
    }
  }

  kill(): void {
    this.failure ??= new Error('killed');
    this.child.stdin.end();
    this.child.kill('SIGKILL');
  }
}

// Re-reads a directory of installed models when it changes, so models installed or removed while the server runs
// are used without a restart (Bergamot's translation models, Whisper's speech models). A change event schedules a
// re-scan after a short debounce, and a periodic re-scan catches what events miss (network file systems). Re-scans
// never overlap: one asked for while another runs is done once more after it.
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { silentLogger, type Logger } from './logger.js';

export interface DirectoryWatchOptions {
  /** Re-scan this often even without a change event, ms (0: never). */
  intervalMs: number;
  /** Quiet time after a change event before the re-scan (a copy or an install is several events). Default 200. */
  debounceMs?: number;
  logger?: Logger;
  /** Names the directory in logged errors. */
  what: string;
  /** Also changes inside its subdirectories (models that are directories, such as sherpa-onnx's Whisper). */
  recursive?: boolean;
}

export class DirectoryWatch {
  private watcher: FSWatcher | undefined;
  /** The directory watched: `dir`, or the nearest existing ancestor while `dir` does not exist yet. */
  private watching = '';
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private readonly log: Logger;

  constructor(
    private readonly dir: string,
    private readonly scan: () => Promise<void>,
    private readonly opts: DirectoryWatchOptions,
  ) {
    this.log = opts.logger ?? silentLogger;
  }

  /** Starts watching (the caller runs its first scan itself, usually awaiting `rescan()`). */
  start(): void {
    this.attach();
    if (this.opts.intervalMs > 0) {
      this.timer = setInterval(() => this.schedule(), this.opts.intervalMs);
      this.timer.unref();
    }
  }

  /** Re-scans now; serialised, and repeated once if asked again while running. */
  rescan(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.scan();
      } while (this.again && !this.closed);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    clearInterval(this.timer);
    clearTimeout(this.debounce);
    await this.running?.catch(() => {});
  }

  private schedule(): void {
    if (this.closed) return;
    this.attach();
    void this.rescan().catch((err) => this.log.error({ err, dir: this.dir }, `${this.opts.what} re-scan failed`));
  }

  /**
   * Watches `dir`, or, while it does not exist (no model installed yet), its nearest existing ancestor for the
   * directory's creation: the watch moves down once it appears, and back up if it is removed.
   */
  private attach(): void {
    let target = this.dir;
    while (!existsSync(target) && dirname(target) !== target) target = dirname(target);
    if (target === this.watching && this.watcher) return;
    this.watcher?.close();
    this.watcher = undefined;
    this.watching = target;
    // the path component below `target` on the way to `dir` (null when `dir` itself is watched)
    const next = target === this.dir ? null : basename(pathBelow(target, this.dir));
    try {
      const w = watch(target, { recursive: next === null && this.opts.recursive === true }, (_event, name) => {
        if (next !== null && name !== null && name !== next) return;
        clearTimeout(this.debounce);
        this.debounce = setTimeout(() => this.schedule(), this.opts.debounceMs ?? 200);
      });
      // e.g. the watched directory was removed: watch again from the next periodic re-scan or event on an ancestor
      w.on('error', () => {
        w.close();
        if (this.watcher === w) (this.watcher = undefined), (this.watching = '');
        this.schedule();
      });
      this.watcher = w;
    } catch {
      // not watchable (permissions, no inotify watches left): the periodic re-scan still finds changes
      this.watching = '';
    }
  }
}

/** The child of `ancestor` that leads to `path`. */
function pathBelow(ancestor: string, path: string): string {
  let p = path;
  while (dirname(p) !== ancestor && dirname(p) !== p) p = dirname(p);
  return p;
}

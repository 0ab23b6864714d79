// Where model files may be written. Every file name that comes from outside (an index record, an archive entry, a
// download, a name given on the command line) becomes a path through `pathUnder` only: a plain file name of the shape
// expected there, inside its folder, or an error naming it. Installs in progress write under names that carry their
// owner (host and process), so that what a killed install left is told apart from one still running and removed
// (`removeInstallLeftovers`, when an install starts and when the server starts).
import { hostname } from 'node:os';
import { readdir, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ModelInstallError } from './model-install-error.js';

/** A file name's longest form in bytes: room for the partial-file prefix within a file system's 255. */
export const MAX_NAME_BYTES = 128;

/** Letters and digits of any script, space and `._+@~-`: no separator, no control or invisible character. */
const PLAIN_NAME = /^[\p{L}\p{N} ._+@~-]+$/u;

/** What a caller expects beyond a plain name: a pattern and the words that say it in the error. */
export interface NameShape {
  pattern: RegExp;
  says: string;
}

/** Why `name` is not a plain file name, or undefined when it is one. */
function plainNameProblem(name: string): string | undefined {
  if (name === '') return 'it is empty';
  if (name.includes('\0')) return 'it holds a NUL byte';
  if (/[/\\]/.test(name)) return 'it holds a path separator';
  if (name.includes('..') || name === '.') return "it is or holds '..' or '.'";
  const bytes = Buffer.byteLength(name);
  if (bytes > MAX_NAME_BYTES) return `it is ${bytes} bytes long, more than ${MAX_NAME_BYTES}`;
  if (!PLAIN_NAME.test(name)) return "it holds characters other than letters, digits, space and '._+@~-'";
  return undefined;
}

/** A name for messages: quoted, escaped (NUL shows as \u0000) and cut short. */
const quoted = (name: string) => JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);

/**
 * The path of the file `name` in `dir`, when `name` is a plain file name (and of `shape`, when given); otherwise a
 * ModelInstallError saying what (`what`: the download, archive or record it came from) and why.
 */
export function pathUnder(dir: string, name: string, what: string, shape?: NameShape): string {
  const problem = plainNameProblem(name) ?? (shape && !shape.pattern.test(name) ? `it is not ${shape.says}` : undefined);
  if (problem) throw new ModelInstallError(`${what}: refusing the file name ${quoted(name)} (${problem}); nothing was installed`);
  const path = join(dir, name);
  // Said by the rules above; checked once more where it matters.
  if (dirname(resolve(path)) !== resolve(dir)) throw new ModelInstallError(`${what}: refusing the file name ${quoted(name)} (outside ${dir})`);
  return path;
}

/**
 * The path of `relative` (folders and a file name, "/"-separated, as archives name their entries) in `dir`: each step
 * a plain file name ("./" steps and doubled slashes aside), or an error as pathUnder's.
 */
export function nestedPathUnder(dir: string, relative: string, what: string): string {
  const where = `${what}, entry ${quoted(relative)}`;
  const steps = relative.split('/').filter((step) => step !== '.' && step !== '');
  if (relative.startsWith('/') || steps.length === 0) {
    throw new ModelInstallError(`${where}: refusing it (${steps.length === 0 ? 'it names no file' : 'it is an absolute path'}); nothing was installed`);
  }
  return steps.reduce((at, step) => pathUnder(at, step, where), dir);
}

/** This process as the owner of partial files: host (letters, digits, '-') and process id. */
const HOST = hostname().replace(/[^A-Za-z0-9-]/g, '-').slice(0, 32) || 'host';
const OWNER = `${HOST}.${process.pid}`;
const PARTIAL_PREFIX = '.partial.';
const PARTIAL = /^\.partial\.([A-Za-z0-9-]+)\.(\d+)\./;

/** The hidden name in `dir` under which this process writes `label` (a staging folder, a download) until it is complete. */
export function partialPath(dir: string, label: string): string {
  return join(dir, `${PARTIAL_PREFIX}${OWNER}.${label}`);
}

/** Partial files whose owner cannot be asked (another host; names older releases wrote) are left this long. */
export const FOREIGN_LEFTOVER_MS = 6 * 3600_000;

/** What releases before owner-named partial files left: staging folders, parts and temporary copies. */
const UNOWNED_PARTIAL = /^\.(install-.+|.+\.\d+\.(part|tmp|old)|remove-.+-\d+)$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The newest modification time of a file, or of a folder and what it holds directly (a download in progress touches it). */
async function lastTouched(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.mtimeMs;
  const inside = await readdir(path).catch(() => [] as string[]);
  const times = await Promise.all(inside.map((n) => stat(join(path, n)).then((s) => s.mtimeMs, () => 0)));
  return Math.max(info.mtimeMs, ...times);
}

async function isLeftover(dir: string, name: string, now: number): Promise<boolean> {
  const owned = PARTIAL.exec(name);
  if (owned?.[1] === HOST) return Number(owned[2]) !== process.pid && !alive(Number(owned[2]));
  if (!owned && !UNOWNED_PARTIAL.test(name)) return false;
  return now - (await lastTouched(join(dir, name)).catch(() => now)) > FOREIGN_LEFTOVER_MS;
}

/**
 * Removes what killed installs left in the models folder and its language-model and speech-model folders: partial
 * files of processes of this host that are gone, and those of other hosts untouched for FOREIGN_LEFTOVER_MS. Returns
 * the paths removed.
 */
export async function removeInstallLeftovers(modelsDir: string): Promise<string[]> {
  const removed: string[] = [];
  const now = Date.now();
  for (const dir of [modelsDir, join(modelsDir, 'llm'), join(modelsDir, 'whisper')]) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.startsWith('.'))) {
      if (!(await isLeftover(dir, name, now))) continue;
      await rm(join(dir, name), { recursive: true, force: true });
      removed.push(join(dir, name));
    }
  }
  return removed;
}

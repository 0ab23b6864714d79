// What this server is: Tolk's version (package.json), the Node.js running it, and the git commit where the code is a
// git checkout (read from .git, no git program needed; absent otherwise, as in a copy without .git).
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BuildInfo {
  version: string;
  node: string;
  commit: string | undefined;
}

/** The repository root: dist/src/ops/ → three levels up, where package.json is. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const read = (path: string) => readFileSync(path, 'utf8').trim();

/** The commit HEAD names in the checkout at `root` (a worktree's .git file followed), or undefined. */
export function gitCommit(root: string): string | undefined {
  try {
    let gitDir = join(root, '.git');
    if (statSync(gitDir).isFile()) gitDir = resolve(root, read(gitDir).replace(/^gitdir: /, ''));
    // a worktree keeps HEAD in its own directory and the branches in the common one
    const common = (() => {
      try {
        return resolve(gitDir, read(join(gitDir, 'commondir')));
      } catch {
        return gitDir;
      }
    })();
    const head = read(join(gitDir, 'HEAD'));
    const ref = /^ref: (.+)$/.exec(head)?.[1];
    if (!ref) return /^[0-9a-f]{40}$/.test(head) ? head : undefined;
    for (const dir of [gitDir, common]) {
      try {
        return read(join(dir, ref));
      } catch {
        // packed, or in the common directory
      }
    }
    const packed = read(join(common, 'packed-refs')).split('\n').find((l) => l.endsWith(` ${ref}`));
    return packed?.slice(0, 40);
  } catch {
    return undefined;
  }
}

export function buildInfo(root = ROOT): BuildInfo {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return { version, node: process.version, commit: gitCommit(root) };
}

// Resident memory of a server as the benchmarks read it: its process and every process it started (Apertium stages,
// format threads' children), from /proc.
import { readFileSync, readdirSync } from 'node:fs';

/** Summed RSS (MiB) of a process and all its descendants, from /proc. */
export function treeRssMb(root: number): { mb: number; processes: number } {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      /* gone */
    }
  }
  let kb = 0;
  let processes = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      kb += Number(m?.[1] ?? 0);
      processes++;
    } catch {
      continue;
    }
    stack.push(...(children.get(pid) ?? []));
  }
  return { mb: Math.round(kb / 1024), processes };
}

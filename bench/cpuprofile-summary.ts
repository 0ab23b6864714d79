// Summary of a V8 CPU profile (.cpuprofile, e.g. from `bench/translate.ts --cpu-prof-dir=DIR`): where the busy time
// went, by function (self time), by module (self time), and by the nearest module of this repository on the stack
// (a library's or Node's work charged to the src/ code that called it), optionally per request.
//
// Run: node dist/bench/cpuprofile-summary.js FILE.cpuprofile [--from=S] [--to=S] [--requests=N] [--top=25]
//   --from/--to: seconds after the profile's start (a window under steady load; startup compiles a lot)
//   --requests: requests answered in the window, to print ms per request
// Under a loaded machine the profile counts wall time: a syscall that wakes another process (a pipe write, a socket
// write) is charged while the kernel runs that process instead. Compare with the bench's CPU figures.

import { readFileSync } from 'node:fs';
import { benchArgs } from './args.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const args = benchArgs(process.argv.slice(3));
const file = process.argv[2];
if (!file) throw new Error('usage: cpuprofile-summary FILE.cpuprofile [--from=S] [--to=S] [--requests=N] [--top=25]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const from = profile.startTime + Number(args.get('from') ?? 0) * 1e6;
const to = profile.startTime + Number(args.get('to') ?? Infinity) * 1e6;
const requests = Number(args.get('requests') ?? NaN);
const top = Number(args.get('top') ?? 25);

const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** A package under node_modules, a file of this repository under dist/, a node: module, or the native frame's name. */
function moduleOf(n: ProfileNode): string {
  const url = n.callFrame.url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /dist\/((?:src|bench)\/.*)$/.exec(url);
  if (own) return own[1]!;
  return url || `(${n.callFrame.functionName || 'native'})`;
}
const isOwn = (n: ProfileNode) => /dist\/(?:src|bench)\//.test(n.callFrame.url);
const label = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${moduleOf(n)}:${n.callFrame.lineNumber + 1}`;

const byFunction = new Map<string, number>();
const byModule = new Map<string, number>();
const byOwnModule = new Map<string, number>();
const add = (m: Map<string, number>, k: string, us: number) => m.set(k, (m.get(k) ?? 0) + us);
let busy = 0;
let t = profile.startTime;
profile.samples.forEach((id, i) => {
  t += profile.timeDeltas[i] ?? 0;
  const n = nodes.get(id)!;
  if (t < from || t > to || n.callFrame.functionName === '(idle)') return;
  const us = profile.timeDeltas[i] ?? 0;
  busy += us;
  add(byFunction, label(n), us);
  add(byModule, moduleOf(n), us);
  let owner: ProfileNode | undefined;
  for (let x: number | undefined = id; x !== undefined && !owner; x = parent.get(x)) if (isOwn(nodes.get(x)!)) owner = nodes.get(x);
  add(byOwnModule, owner ? moduleOf(owner) : moduleOf(n), us);
});

const perRequest = (us: number) => (Number.isFinite(requests) ? `${(us / 1000 / requests).toFixed(3)} ms/req  ` : '');
console.log(`busy ${(busy / 1000).toFixed(0)} ms${Number.isFinite(requests) ? `, ${(busy / 1000 / requests).toFixed(3)} ms per request` : ''}`);
for (const [title, m] of [
  ['self time by function', byFunction],
  ['self time by module', byModule],
  ['by the nearest module of this repository on the stack', byOwnModule],
] as const) {
  console.log(`\n## ${title}`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((100 * us) / busy).toFixed(1).padStart(5)} %  ${perRequest(us)}${k}`);
}

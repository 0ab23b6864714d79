// The fair process pool with stand-in processes (`sleep`, which never answers by itself): round-robin between
// accounts, a share per account, deadlines and cancellation that kill the process, recycling.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { EngineError } from '../../src/engines/engine.js';
import { ProcessPool, type PooledProcess, type ProcessPoolOptions } from '../../src/engines/process-pool.js';

class Sleeper implements PooledProcess {
  readonly child: ChildProcess = spawn('sleep', ['1000'], { stdio: 'ignore' });
  alive = true;
  readonly exited = once(this.child, 'exit');

  constructor() {
    this.child.on('exit', () => (this.alive = false));
  }

  get pids(): number[] {
    return [this.child.pid!];
  }

  kill(): void {
    this.alive = false;
    this.child.kill('SIGKILL');
  }
}

function pool(o: Partial<ProcessPoolOptions<Sleeper>> = {}): ProcessPool<Sleeper> {
  return new ProcessPool<Sleeper>({ name: 'test', create: () => new Sleeper(), size: 1, deadlineMs: 30_000, ...o });
}

/** A task that runs until released; records when it started. */
function gate(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  let used: Sleeper | undefined;
  const task = async (p: Sleeper) => {
    used = p;
    log.push(name);
    await done;
    return name;
  };
  return { task, release: () => release(), process: () => used };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('fair process pool', () => {
  it('serves accounts round-robin: a backlog of one account does not hold back another', async () => {
    const p = pool({ maxPerAccount: 1 });
    const log: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const runs: Promise<string>[] = [];
    const submit = (account: string, name: string) => {
      const g = gate(log, name);
      gates.set(name, g);
      runs.push(p.run(g.task, { account }));
    };
    for (let i = 1; i <= 4; i++) submit('hostile', `h${i}`);
    submit('normal', 'n1');
    submit('normal', 'n2');
    for (const name of ['h1', 'n1', 'h2', 'n2', 'h3', 'h4']) {
      await tick();
      assert.equal(log.at(-1), name);
      gates.get(name)!.release();
    }
    assert.deepEqual(await Promise.all(runs), ['h1', 'h2', 'h3', 'h4', 'n1', 'n2']);
    assert.deepEqual(log, ['h1', 'n1', 'h2', 'n2', 'h3', 'h4']);
    p.close();
  });

  it('a request sent in batches, one after another, keeps its place in the turn between batches', async () => {
    const p = pool({ maxPerAccount: 1 });
    const log: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const run = (account: string, name: string) => {
      const g = gate(log, name);
      gates.set(name, g);
      return p.run(g.task, { account });
    };
    const hostile = (async () => {
      for (let i = 1; i <= 3; i++) await run('hostile', `h${i}`);
    })();
    const normal = [run('n1', 'n1a'), run('n1', 'n1b'), run('n2', 'n2a'), run('n2', 'n2b')];
    for (const name of ['h1', 'n1a', 'n2a', 'h2', 'n1b', 'n2b', 'h3']) {
      for (let i = 0; i < 5 && log.at(-1) !== name; i++) await tick();
      assert.equal(log.at(-1), name, `after ${log.join(' ')}`);
      gates.get(name)!.release();
    }
    await Promise.all([hostile, ...normal]);
    p.close();
  });

  it('leaves a process for other accounts: one account holds at most all but one', async () => {
    const p = pool({ size: 2 });
    const log: string[] = [];
    const hostile = [gate(log, 'h1'), gate(log, 'h2'), gate(log, 'h3')];
    const runs = hostile.map((g) => p.run(g.task, { account: 'hostile' }));
    const normal = gate(log, 'n1');
    const n = p.run(normal.task, { account: 'normal' });
    await tick();
    assert.deepEqual(log, ['h1', 'n1']);
    normal.release();
    assert.equal(await n, 'n1');
    for (const g of hostile) g.release();
    await Promise.all(runs);
    p.close();
  });

  it('kills a process that misses the deadline, answers a timeout and starts a fresh one', async () => {
    const p = pool({ deadlineMs: 100 });
    const hung = gate([], 'hung');
    await assert.rejects(p.run(hung.task, { account: 'a' }), (err: unknown) => err instanceof EngineError && err.kind === 'timeout');
    await hung.process()!.exited;
    assert.equal(hung.process()!.alive, false);
    assert.equal(p.replaced.deadline, 1);
    const next = await p.run(async (proc) => proc, { account: 'b' });
    assert.notEqual(next, hung.process());
    assert.equal(next.alive, true);
    p.close();
  });

  it('a cancelled request releases its process at once (killed), and a waiting one just leaves the queue', async () => {
    const p = pool();
    const log: string[] = [];
    const running = gate(log, 'running');
    const controller = new AbortController();
    const first = p.run(running.task, { account: 'a', signal: controller.signal });
    const waitingController = new AbortController();
    const waiting = p.run(gate(log, 'never').task, { account: 'b', signal: waitingController.signal });
    const other = p.run(async (proc) => proc, { account: 'c' });
    await tick();
    waitingController.abort();
    await assert.rejects(waiting);
    controller.abort();
    await assert.rejects(first);
    const proc = await other;
    assert.notEqual(proc, running.process());
    await running.process()!.exited;
    assert.deepEqual(log, ['running']);
    assert.equal(p.replaced.cancelled, 1);
    p.close();
  });

  it('recycles processes by tasks served, by age and by resident memory', async () => {
    let now = 0;
    const byTasks = pool({ maxTasks: 2 });
    const a = await byTasks.run(async (proc) => proc);
    assert.equal(await byTasks.run(async (proc) => proc), a);
    assert.notEqual(await byTasks.run(async (proc) => proc), a);
    assert.equal(byTasks.replaced.tasks, 1);
    byTasks.close();

    const byAge = pool({ maxAgeMs: 1000, now: () => now });
    const b = await byAge.run(async (proc) => proc);
    now = 2000;
    assert.equal(await byAge.run(async (proc) => proc), b);
    assert.notEqual(await byAge.run(async (proc) => proc), b);
    byAge.close();

    const byMemory = pool({ maxRssBytes: 1 });
    const c = await byMemory.run(async (proc) => proc);
    assert.notEqual(await byMemory.run(async (proc) => proc), c);
    assert.equal(byMemory.replaced.memory, 2);
    byMemory.close();
  });

  it('refuses more waiting requests of one account than its queue holds, as overloaded', async () => {
    const p = pool({ maxQueuePerAccount: 1 });
    const g = gate([], 'busy');
    const running = p.run(g.task, { account: 'a' });
    const queued = p.run(async () => 'queued', { account: 'a' });
    await assert.rejects(p.run(async () => 'refused', { account: 'a' }), (err: unknown) => err instanceof EngineError && err.kind === 'overloaded');
    g.release();
    assert.equal(await running, 'busy');
    assert.equal(await queued, 'queued');
    p.close();
  });
});

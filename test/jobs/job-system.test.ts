// The job system's contract (src/jobs/job-runner.ts), on SQLite and PostgreSQL, for both job kinds' queues
// (documents, TMX jobs): atomic claims under a lease, renewal, take-over of expired leases, hand-back; and the runner
// over them: bounded concurrency, lease renewal while a handler works, abort on a lost lease, hand-back on close,
// recovery of a dead node's job, a live node's job left alone.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Store } from '../../src/store/store.js';
import { JobRunner, type JobHandler, type JobQueue, type RunningJob } from '../../src/jobs/job-runner.js';
import { documentQueue } from '../../src/documents/document-worker.js';
import { memoryJobQueue } from '../../src/customization/memories/memory-jobs.js';
import { silentLogger } from '../../src/lib/logger.js';
import { testStoreLocation, type TestDatabase } from '../helpers/harness.js';
import { documentRow, memoryJobRow } from '../helpers/job-rows.js';
import { waitFor, withDeadline } from '../helpers/wait.js';

const T0 = 1_700_000_000_000;

interface LeaseState {
  /** Waiting to be claimed (queued, or handed back). */
  waiting: boolean;
  owner: string | null;
  expiresAt: number | null;
  attempts: number;
}

type Job = { id: string; attempts: number };
type JobIdentity = { id: string; account_id: string; created_at: number };
type LeaseColumns = { status: string; lease_owner: string | null; lease_expires_at: number | null; attempts: number };

/** What tells one job kind's table apart; the contract's operations on it (`kindOf`) are the same for both. */
interface KindSpec {
  name: string;
  table: 'documents' | 'tm_jobs';
  queue(store: Store): JobQueue<Job>;
  /** Inserts a job, waiting to be claimed. */
  insertRow(store: Store, row: JobIdentity): Promise<void>;
  getRow(store: Store, id: string): Promise<LeaseColumns | undefined>;
  /** A waiting job's status, and the status of a job a node holds. */
  waitingStatus: string;
  heldStatus: string;
  /** Ends the job as its handler would; false when `owner` no longer holds it. */
  finish(store: Store, id: string, owner: string): Promise<boolean>;
}

/** One job kind's table, as the contract needs it. */
interface Kind extends KindSpec {
  /** A waiting job created at `createdAt`. */
  insert(store: Store, accountId: string, createdAt: number): Promise<string>;
  /** Holds the job as a node that may since have died would. */
  hold(store: Store, id: string, owner: string, expiresAt: number, attempts: number): Promise<void>;
  state(store: Store, id: string): Promise<LeaseState>;
}

function kindOf(spec: KindSpec): Kind {
  return {
    ...spec,
    async insert(store, accountId, createdAt) {
      const id = randomUUID();
      await spec.insertRow(store, { id, account_id: accountId, created_at: createdAt });
      return id;
    },
    async hold(store, id, owner, expiresAt, attempts) {
      await store.db
        .updateTable(spec.table)
        .set({ status: spec.heldStatus, lease_owner: owner, lease_expires_at: expiresAt, attempts })
        .where('id', '=', id)
        .execute();
    },
    async state(store, id) {
      const row = (await spec.getRow(store, id))!;
      const expiresAt = row.lease_expires_at === null ? null : Number(row.lease_expires_at);
      return { waiting: row.status === spec.waitingStatus && row.lease_owner === null, owner: row.lease_owner, expiresAt, attempts: Number(row.attempts) };
    },
  };
}

const KINDS: Kind[] = [
  kindOf({
    name: 'documents',
    table: 'documents',
    queue: (store) => documentQueue(store.repositories.documents),
    insertRow: (store, row) => store.repositories.documents.insert(documentRow({ ...row, key_id: 'k' })),
    getRow: (store, id) => store.repositories.documents.get(id),
    waitingStatus: 'queued',
    heldStatus: 'translating',
    finish: (store, id, owner) => store.repositories.documents.finish(id, owner, { status: 'done' }),
  }),
  kindOf({
    name: 'TMX jobs',
    table: 'tm_jobs',
    queue: (store) => memoryJobQueue(store.repositories.memories),
    insertRow: (store, row) => store.repositories.memories.insertJob(memoryJobRow({ ...row, operation: 'export', status: 'processing' })),
    getRow: (store, id) => store.repositories.memories.getJob(null, id),
    // a TMX job stays `processing` while waiting and while held: the lease owner tells them apart
    waitingStatus: 'processing',
    heldStatus: 'processing',
    finish: (store, id, owner) => store.repositories.memories.finishJob(id, owner, { status: 'completed' }),
  }),
];

function jobSystemContract(db: TestDatabase, kind: Kind): void {
  describe(`job system: ${kind.name} on ${db}`, () => {
    let store: Store;
    let cleanup: () => void;
    let accountId: string;
    let queue: JobQueue<Job>;
    const runners: JobRunner<Job>[] = [];

    before(async () => {
      const location = testStoreLocation(db);
      cleanup = location.cleanup;
      store = await Store.open({ url: location.url, ...(location.pgSchema ? { pgSchema: location.pgSchema } : {}) });
      accountId = randomUUID();
      await store.repositories.accounts.insertAccount({ id: accountId, name: 'acme', plan: 'pro', features: '[]', character_limit: null, created_at: T0 });
      queue = kind.queue(store);
    });
    beforeEach(async () => {
      await Promise.all(runners.splice(0).map((r) => r.close()));
      await store.db.deleteFrom(kind.table).execute();
    });
    after(async () => {
      await Promise.all(runners.map((r) => r.close()));
      await store.close({ dropSchema: true });
      cleanup();
    });

    const runner = (handler: JobHandler<Job>, options: { concurrency?: number; leaseMs?: number } = {}) => {
      const r = new JobRunner({
        name: 'test',
        label: 'test',
        idField: 'job_id',
        queue,
        handler,
        idOf: (job) => job.id,
        concurrency: options.concurrency ?? 2,
        leaseMs: options.leaseMs ?? 3_000,
        pollIntervalMs: 50,
        now: Date.now,
        logger: silentLogger,
      });
      runners.push(r);
      return r;
    };
    /** A handler that holds each job until released, then ends it (or stops when its signal aborts), recording what it saw. */
    const gated = () => {
      const seen: { job: Job; running: RunningJob }[] = [];
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      let active = 0;
      let most = 0;
      const handler: JobHandler<Job> = async (job, running) => {
        seen.push({ job, running });
        most = Math.max(most, ++active);
        const aborted = new Promise<void>((resolve) => running.signal.addEventListener('abort', () => resolve(), { once: true }));
        await Promise.race([gate, aborted]);
        if (!running.signal.aborted) await kind.finish(store, job.id, running.owner);
        active--;
      };
      return { handler, seen, release: () => open(), most: () => most };
    };

    it('claims the oldest waiting job once, under a lease, counting an attempt', async () => {
      const first = await kind.insert(store, accountId, T0);
      const second = await kind.insert(store, accountId, T0 + 1);
      const a = await queue.claimNext('node-a', T0 + 10, 1000);
      assert.equal(a?.id, first);
      assert.equal(Number(a?.attempts), 1);
      assert.deepEqual(await kind.state(store, first), { waiting: false, owner: 'node-a', expiresAt: T0 + 1010, attempts: 1 });
      assert.equal((await queue.claimNext('node-b', T0 + 20, 1000))?.id, second);
      assert.equal(await queue.claimNext('node-c', T0 + 30, 1000), undefined);
    });

    it('renews only for the holder; an expired lease is taken over and the old holder has lost it', async () => {
      const id = await kind.insert(store, accountId, T0);
      await queue.claimNext('node-a', T0, 1000);
      assert.equal(await queue.renew(id, 'node-a', T0 + 2000, { done: 1, total: 2 }), true);
      assert.equal(await queue.renew(id, 'node-b', T0 + 2000, { done: 1, total: 2 }), false);
      assert.equal(await queue.claimNext('node-b', T0 + 1999, 1000), undefined, 'a live lease is left alone');
      const taken = await queue.claimNext('node-b', T0 + 2001, 1000);
      assert.equal(taken?.id, id);
      assert.equal(Number(taken?.attempts), 2);
      assert.equal(await queue.renew(id, 'node-a', T0 + 5000, { done: 0, total: 0 }), false);
      assert.equal(await queue.handBack(id, 'node-a'), false);
    });

    it('a handed-back job waits again, its claim not counted', async () => {
      const id = await kind.insert(store, accountId, T0);
      await queue.claimNext('node-a', T0, 1000);
      assert.equal(await queue.handBack(id, 'node-b'), false);
      assert.equal(await queue.handBack(id, 'node-a'), true);
      assert.deepEqual(await kind.state(store, id), { waiting: true, owner: null, expiresAt: null, attempts: 0 });
      assert.equal(Number((await queue.claimNext('node-b', T0 + 1, 1000))?.attempts), 1);
    });

    it('concurrent claims from two nodes never take the same job', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 12; i++) ids.add(await kind.insert(store, accountId, T0 + i));
      const claims = await Promise.all(Array.from({ length: 16 }, (_, i) => queue.claimNext(`node-${i % 2}`, T0 + 100, 1000)));
      const claimed = claims.filter((c) => c !== undefined).map((c) => c.id);
      assert.equal(claimed.length, 12);
      assert.deepEqual(new Set(claimed), ids);
    });

    it('the runner runs at most its concurrency at once, renews leases while a job runs, and runs every job', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await kind.insert(store, accountId, Date.now() + i));
      const h = gated();
      const r = runner(h.handler, { concurrency: 2, leaseMs: 600 });
      r.start();
      await waitFor('two jobs to run', () => h.seen.length === 2);
      const held = h.seen[0]!.job.id;
      const firstLease = (await kind.state(store, held)).expiresAt!;
      await waitFor('the lease to be renewed', async () => (await kind.state(store, held)).expiresAt! > firstLease);
      assert.equal(h.seen.length, 2, 'no third job while two run');
      h.release();
      await waitFor('every job to run', () => h.seen.length === 5);
      await r.idle();
      assert.equal(h.most(), 2);
      assert.deepEqual(new Set(h.seen.map((s) => s.job.id)), new Set(ids));
    });

    it('a job whose lease is lost is aborted, and not handed back', async () => {
      const id = await kind.insert(store, accountId, Date.now());
      const h = gated();
      const r = runner(h.handler, { leaseMs: 600 });
      r.start();
      await waitFor('the job to run', () => h.seen.length === 1);
      await kind.hold(store, id, 'thief', Date.now() + 60_000, 2);
      await withDeadline('the abort', new Promise((resolve) => h.seen[0]!.running.signal.addEventListener('abort', resolve, { once: true })));
      assert.equal(h.seen[0]!.running.closing, false);
      await r.idle();
      assert.equal((await kind.state(store, id)).owner, 'thief');
    });

    it('close aborts running jobs and hands them back for another node, which runs them next', async () => {
      const id = await kind.insert(store, accountId, Date.now());
      const h = gated();
      const r = runner(h.handler);
      r.start();
      await waitFor('the job to run', () => h.seen.length === 1);
      const ended = new Promise((resolve) => r.ended.once('ended', resolve));
      await r.close();
      assert.equal(await ended, id);
      assert.equal(h.seen[0]!.running.signal.aborted, true);
      assert.equal(h.seen[0]!.running.closing, true);
      assert.deepEqual(await kind.state(store, id), { waiting: true, owner: null, expiresAt: null, attempts: 0 });
      const next = gated();
      next.release();
      const other = runner(next.handler);
      other.start();
      await waitFor('another node to run it', () => next.seen.length === 1);
      assert.equal(next.seen[0]!.job.attempts, 1, 'the handed-back claim was not counted');
    });

    it('takes over a dead node’s job once its lease expired, and leaves a live node’s job alone', async () => {
      const dead = await kind.insert(store, accountId, Date.now());
      const alive = await kind.insert(store, accountId, Date.now() + 1);
      await kind.hold(store, dead, 'dead', Date.now() - 1, 1);
      await kind.hold(store, alive, 'alive', Date.now() + 60_000, 1);
      const h = gated();
      h.release();
      const r = runner(h.handler);
      r.start();
      await waitFor('the dead node’s job to run', () => h.seen.length === 1);
      await r.idle();
      assert.equal(h.seen[0]!.job.id, dead);
      assert.equal(Number(h.seen[0]!.job.attempts), 2);
      // another poll finds nothing more to do: the live node keeps its job
      r.wake();
      await r.idle();
      assert.equal(h.seen.length, 1);
      assert.equal((await kind.state(store, alive)).owner, 'alive');
    });

    it('a runner of concurrency 0 never claims', async () => {
      const id = await kind.insert(store, accountId, Date.now());
      const h = gated();
      const r = runner(h.handler, { concurrency: 0 });
      r.start();
      r.wake();
      await r.idle();
      assert.equal(h.seen.length, 0);
      assert.equal((await kind.state(store, id)).waiting, true);
    });
  });
}

for (const db of ['sqlite', 'postgres'] as const) for (const kind of KINDS) jobSystemContract(db, kind);

// Billing writes: the limit decision and the ledger in one transaction, per dialect (SQLite: group commit of a
// turn's charges; PostgreSQL: serialised per account by a row lock, so nodes sharing the database cannot overspend).
import { sql, type Kysely, type Transaction } from 'kysely';
import type SqliteDatabase from 'better-sqlite3';
import type { Database, UsageProduct } from './schema.js';

export interface UsageCharge {
  accountId: string;
  keyId: string;
  product: UsageProduct;
  units: number;
  reportingTag: string | null;
  at: number;
  periodStart: number;
}

export interface UsageTotals {
  characters: number;
  speechToTextMs: number;
}

export interface ChargeLimits {
  accountCharacterLimit: number | null;
  keyCharacterLimit: number | null;
  keySpeechToTextMsLimit: number | null;
}

export type ChargeOutcome = { ok: true } | { ok: false; exceeded: 'account' | 'key' };

function chargeUnits(charge: UsageCharge): { chars: number; ms: number } {
  const isSpeech = charge.product === 'speech_to_text';
  return { chars: isSpeech ? 0 : charge.units, ms: isSpeech ? charge.units : 0 };
}

/**
 * Which subjects' totals the billing decision reads: none when no limit applies to the charge's product (most paid
 * keys), so an unlimited charge costs only its writes. (A product's units never count against the other's limits.)
 */
function totalsNeeded(charge: UsageCharge, limits: ChargeLimits): { account: boolean; key: boolean } {
  if (charge.product === 'speech_to_text') return { account: false, key: limits.keySpeechToTextMsLimit !== null };
  return { account: limits.accountCharacterLimit !== null, key: limits.keyCharacterLimit !== null };
}

const NO_USAGE: UsageTotals = { characters: 0, speechToTextMs: 0 };

/** The billing decision: the refusal when the charge does not fit the period's totals, else null. */
function chargeRefused(charge: UsageCharge, limits: ChargeLimits, account: UsageTotals, key: UsageTotals): ChargeOutcome | null {
  if (charge.product !== 'speech_to_text') {
    if (limits.accountCharacterLimit !== null && account.characters + charge.units > limits.accountCharacterLimit) return { ok: false, exceeded: 'account' };
    if (limits.keyCharacterLimit !== null && key.characters + charge.units > limits.keyCharacterLimit) return { ok: false, exceeded: 'key' };
  } else if (limits.keySpeechToTextMsLimit !== null && key.speechToTextMs + charge.units > limits.keySpeechToTextMsLimit) {
    return { ok: false, exceeded: 'key' };
  }
  return null;
}

type PendingCharge = { charge: UsageCharge; limits: ChargeLimits; resolve: (o: ChargeOutcome) => void; reject: (e: unknown) => void };

/**
 * Group commit for SQLite: the charges of one event-loop turn run in one transaction, each decided after the one
 * before it (so quotas hold exactly as with one transaction each), with one commit and one WAL write for all.
 */
export class SqliteChargeBatcher {
  private queue: PendingCharge[] = [];

  constructor(
    private readonly db: Kysely<Database>,
    private readonly run: (items: readonly { charge: UsageCharge; limits: ChargeLimits }[]) => ChargeOutcome[],
  ) {}

  private flushing: Promise<void> = Promise.resolve();

  add(charge: UsageCharge, limits: ChargeLimits): Promise<ChargeOutcome> {
    return new Promise((resolve, reject) => {
      if (this.queue.push({ charge, limits, resolve, reject }) === 1) {
        this.flushing = new Promise<void>((done) => setImmediate(() => void this.flush().finally(done)));
      }
    });
  }

  /** Resolves once every charge added so far is written (or refused). */
  async drain(): Promise<void> {
    while (this.queue.length > 0) await new Promise((r) => setImmediate(r));
    await this.flushing;
  }

  private async flush(): Promise<void> {
    const items = this.queue;
    this.queue = [];
    // Holding Kysely's (only) SQLite connection keeps any Kysely transaction off it while this one runs.
    const runAlone = (batch: PendingCharge[]) => this.db.connection().execute(async () => this.run(batch));
    try {
      const outcomes = await runAlone(items);
      items.forEach((item, i) => item.resolve(outcomes[i]!));
    } catch {
      // One failing charge must not fail the others of its batch: each again on its own.
      for (const item of items) await runAlone([item]).then(([o]) => item.resolve(o!), item.reject);
    }
  }
}

/**
 * One charge on SQLite over statements prepared once (same reads, decision and writes as the Kysely path, without
 * re-preparing six queries per call); the caller runs it inside its better-sqlite3 transaction.
 */
export function prepareSqliteChargeStatements(db: SqliteDatabase.Database): (charge: UsageCharge, limits: ChargeLimits) => ChargeOutcome {
  const totals = db.prepare<[string, number], { characters: number; speech_to_text_ms: number }>(
    'select characters, speech_to_text_ms from usage_counters where subject_id = ? and period_start = ?',
  );
  const insertEvent = db.prepare(
    'insert into usage_events (account_id, key_id, product, units, reporting_tag, created_at) values (?, ?, ?, ?, ?, ?)',
  );
  const bumpCounter = db.prepare(
    'insert into usage_counters (subject_id, period_start, characters, speech_to_text_ms) values (?, ?, ?, ?) ' +
      'on conflict (subject_id, period_start) do update set characters = usage_counters.characters + excluded.characters, ' +
      'speech_to_text_ms = usage_counters.speech_to_text_ms + excluded.speech_to_text_ms',
  );
  const periodTotals = (subjectId: string, periodStart: number): UsageTotals => {
    const row = totals.get(subjectId, periodStart);
    return { characters: row?.characters ?? 0, speechToTextMs: row?.speech_to_text_ms ?? 0 };
  };
  const chargeOne = (charge: UsageCharge, limits: ChargeLimits): ChargeOutcome => {
    const needed = totalsNeeded(charge, limits);
    const account = needed.account ? periodTotals(charge.accountId, charge.periodStart) : NO_USAGE;
    const refused = chargeRefused(charge, limits, account, needed.key ? periodTotals(charge.keyId, charge.periodStart) : NO_USAGE);
    if (refused) return refused;
    insertEvent.run(charge.accountId, charge.keyId, charge.product, charge.units, charge.reportingTag, charge.at);
    const { chars, ms } = chargeUnits(charge);
    for (const subject of [charge.accountId, charge.keyId]) bumpCounter.run(subject, charge.periodStart, chars, ms);
    return { ok: true };
  };
  return chargeOne;
}

/** charge() on SQLite: a batch as one synchronous better-sqlite3 transaction (BEGIN IMMEDIATE … COMMIT). */
export function prepareSqliteCharge(db: SqliteDatabase.Database): (items: readonly { charge: UsageCharge; limits: ChargeLimits }[]) => ChargeOutcome[] {
  const chargeOne = prepareSqliteChargeStatements(db);
  const tx = db.transaction((items: readonly { charge: UsageCharge; limits: ChargeLimits }[]) => items.map((i) => chargeOne(i.charge, i.limits)));
  return (items) => tx.immediate(items);
}

/**
 * charge() on PostgreSQL: the account row is locked first, so charges of one account are serialised across nodes;
 * the limits are then re-read inside the lock, so a limit lowered on another node (whose auth cache this node may
 * still hold) applies to this very charge. (Deactivation is checked at authentication: work accepted before it is
 * still billed.)
 */
export async function chargePostgres(db: Kysely<Database>, charge: UsageCharge): Promise<ChargeOutcome> {
  return db.transaction().execute((trx) => chargePostgresIn(trx, charge));
}

/** chargePostgres inside the caller's transaction (which commits or rolls back the charge with its own writes). */
export async function chargePostgresIn(trx: Transaction<Database>, charge: UsageCharge): Promise<ChargeOutcome> {
  const account = await trx.selectFrom('accounts').select('character_limit').where('id', '=', charge.accountId).forUpdate().executeTakeFirst();
  const key = await trx
    .selectFrom('api_keys')
    .select(['character_limit', 'speech_to_text_ms_limit'])
    .where('id', '=', charge.keyId)
    .executeTakeFirst();
  if (!account) return { ok: false, exceeded: 'account' } as const;
  if (!key) return { ok: false, exceeded: 'key' } as const;
  const current: ChargeLimits = {
    accountCharacterLimit: account.character_limit,
    keyCharacterLimit: key.character_limit,
    keySpeechToTextMsLimit: key.speech_to_text_ms_limit,
  };
  const needed = totalsNeeded(charge, current);
  const [accountTotals, keyTotals] = await Promise.all([
    needed.account ? periodTotals(trx, charge.accountId, charge.periodStart) : NO_USAGE,
    needed.key ? periodTotals(trx, charge.keyId, charge.periodStart) : NO_USAGE,
  ]);
  const refused = chargeRefused(charge, current, accountTotals, keyTotals);
  if (refused) return refused;
  await trx
    .insertInto('usage_events')
    .values({
      account_id: charge.accountId,
      key_id: charge.keyId,
      product: charge.product,
      units: charge.units,
      reporting_tag: charge.reportingTag,
      created_at: charge.at,
    })
    .execute();
  const { chars, ms } = chargeUnits(charge);
  for (const subject of [charge.accountId, charge.keyId]) {
    await trx
      .insertInto('usage_counters')
      .values({ subject_id: subject, period_start: charge.periodStart, characters: chars, speech_to_text_ms: ms })
      .onConflict((oc) =>
        oc.columns(['subject_id', 'period_start']).doUpdateSet({
          characters: sql`usage_counters.characters + ${chars}`,
          speech_to_text_ms: sql`usage_counters.speech_to_text_ms + ${ms}`,
        }),
      )
      .execute();
  }
  return { ok: true } as const;
}

/** One subject's totals of one billing period (inside a charge's transaction, or alone). */
export async function periodTotals(db: Kysely<Database>, subjectId: string, periodStart: number): Promise<UsageTotals> {
  const row = await db
    .selectFrom('usage_counters')
    .select(['characters', 'speech_to_text_ms'])
    .where('subject_id', '=', subjectId)
    .where('period_start', '=', periodStart)
    .executeTakeFirst();
  return { characters: row?.characters ?? 0, speechToTextMs: row?.speech_to_text_ms ?? 0 };
}

// Accounts, API keys and authentication: keys are minted here, stored only as SHA-256 hashes and verified in constant time.
import { timingSafeEqual } from 'node:crypto';
import { hashApiKey, newAccountId, newApiKeySecret, newKeyId } from '../lib/ids.js';
import { ServiceError } from '../lib/errors.js';
import type { ApiKeyRow, AccountRow } from '../store/store.js';
import type { AccountsRepository } from '../store/repositories/accounts-repository.js';
import type { ChangeFeed } from '../store/change-feed.js';
import type { KeyKind, Plan } from '../store/schema.js';
import { billingPeriodAt, type BillingPeriod } from './billing-period.js';

export const ACCOUNT_FEATURES = ['detection'] as const;
export type AccountFeature = (typeof ACCOUNT_FEATURES)[number];

/** Characters per billing period when none is given: the reference's free plan allowance; pro is unlimited. */
export const DEFAULT_FREE_CHARACTER_LIMIT = 500_000;
export const DEFAULT_KEY_LABEL = 'Tolk API Key';

export interface Account {
  id: string;
  name: string;
  plan: Plan;
  features: ReadonlySet<string>;
  characterLimit: number | null;
  createdAt: number;
}

export interface ApiKey {
  id: string;
  accountId: string;
  kind: KeyKind;
  label: string;
  keyStart: string;
  keyEnd: string;
  scopes: readonly string[] | null;
  characterLimit: number | null;
  speechToTextMsLimit: number | null;
  createdAt: number;
  deactivatedAt: number | null;
}

export interface AuthContext {
  account: Account;
  key: ApiKey;
}

export interface CreateAccountInput {
  plan: Plan;
  name?: string;
  features?: readonly string[];
  characterLimit?: number | null;
}

export interface AccountsServiceOptions {
  /**
   * How long a verified key stays cached in memory: a change on another node arrives through the store's change feed
   * (PostgreSQL); this bounds the staleness when that feed is down.
   */
  authCacheTtlMs?: number;
  authCacheMaxEntries?: number;
  now?: () => number;
}

function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    features: new Set(JSON.parse(row.features) as string[]),
    characterLimit: row.character_limit,
    createdAt: row.created_at,
  };
}

export function toKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    accountId: row.account_id,
    kind: row.kind,
    label: row.label,
    keyStart: row.key_start,
    keyEnd: row.key_end,
    scopes: row.scopes === null ? null : (JSON.parse(row.scopes) as string[]),
    characterLimit: row.character_limit,
    speechToTextMsLimit: row.speech_to_text_ms_limit,
    createdAt: row.created_at,
    deactivatedAt: row.deactivated_at,
  };
}

export class AccountsService {
  /**
   * Verified keys by presented secret: a hit costs one map lookup, not a SHA-256 per request; a secret is only cached
   * after its hash matched a stored, active key, so an unknown secret never enters (nor evicts anything).
   */
  private readonly cache = new Map<string, { ctx: AuthContext; expires: number }>();
  private readonly ttl: number;
  private readonly maxEntries: number;
  readonly now: () => number;

  constructor(
    private readonly repository: AccountsRepository,
    /** Changes made on other nodes (or by the CLI), which drop cached keys and accounts. */
    private readonly changes: ChangeFeed,
    options: AccountsServiceOptions = {},
  ) {
    this.ttl = options.authCacheTtlMs ?? 5_000;
    this.maxEntries = options.authCacheMaxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
    changes.subscribe((change) => {
      if (change.kind === 'key') this.forgetKey(change.id);
      else if (change.kind === 'account') this.forgetAccount(change.id);
      else if (change.kind === 'reset') this.cache.clear();
    });
  }

  async createAccount(input: CreateAccountInput): Promise<{ account: Account; adminKey: string; adminKeyId: string }> {
    for (const f of input.features ?? []) {
      if (!(ACCOUNT_FEATURES as readonly string[]).includes(f)) throw new ServiceError('invalid_request', `Unknown feature '${f}'.`);
    }
    const id = newAccountId();
    const characterLimit =
      input.characterLimit !== undefined ? input.characterLimit : input.plan === 'free' ? DEFAULT_FREE_CHARACTER_LIMIT : null;
    const row: AccountRow = {
      id,
      name: input.name ?? 'Tolk account',
      plan: input.plan,
      features: JSON.stringify([...new Set(input.features ?? [])]),
      character_limit: characterLimit,
      created_at: this.now(),
    };
    await this.repository.insertAccount(row);
    const admin = await this.insertKey(toAccount(row), 'admin', 'Admin key');
    return { account: toAccount(row), adminKey: admin.secret, adminKeyId: admin.key.id };
  }

  async getAccount(id: string): Promise<Account | undefined> {
    const row = await this.repository.getAccount(id);
    return row && toAccount(row);
  }

  /** Every account, oldest first (the command line's `account list`). */
  async listAccounts(): Promise<Account[]> {
    return (await this.repository.listAccounts()).map(toAccount);
  }

  /** Every key of an account, admin and developer, active and deactivated, oldest first. */
  async listKeys(accountId: string): Promise<ApiKey[]> {
    if (!(await this.repository.getAccount(accountId))) throw new ServiceError('not_found', `Account ${accountId} not found`);
    return (await this.repository.listKeys(accountId)).map(toKey);
  }

  /** Deactivates any key, admin keys included (permanent, as in the Admin API); revoking it twice keeps the first time. */
  async revokeKey(keyId: string): Promise<ApiKey> {
    const row = await this.repository.getKey(keyId);
    if (!row) throw new ServiceError('not_found', `Key ${keyId} not found`);
    if (row.deactivated_at === null) await this.repository.updateKey(keyId, { deactivated_at: this.now() });
    this.forgetKey(keyId);
    return toKey((await this.repository.getKey(keyId))!);
  }

  async createKey(accountId: string, input: { label?: string; kind?: KeyKind; scopes?: string[] | null } = {}) {
    const account = await this.getAccount(accountId);
    if (!account) throw new ServiceError('not_found', `Account ${accountId} not found`);
    return this.insertKey(account, input.kind ?? 'developer', input.label ?? DEFAULT_KEY_LABEL, input.scopes ?? null);
  }

  private async insertKey(account: Account, kind: KeyKind, label: string, scopes: string[] | null = null) {
    const { row, secret } = this.prepareKey(account, kind, label, scopes);
    await this.repository.insertKey(row);
    return { key: toKey(row), secret };
  }

  /** Mints a secret and the row that stores its hash, without writing it (the admin service inserts under its limit). */
  prepareKey(account: Account, kind: KeyKind, label: string, scopes: readonly string[] | null = null): { row: ApiKeyRow; secret: string } {
    const secret = newApiKeySecret(account.plan);
    const row: ApiKeyRow = {
      id: newKeyId(),
      account_id: account.id,
      kind,
      key_hash: hashApiKey(secret),
      key_start: secret.slice(0, 4),
      key_end: secret.slice(-4),
      label,
      scopes: scopes === null ? null : JSON.stringify(scopes),
      character_limit: null,
      speech_to_text_ms_limit: null,
      created_at: this.now(),
      deactivated_at: null,
    };
    return { row, secret };
  }

  /** The cached context of a presented secret verified less than the cache's lifetime ago, without any await. */
  cachedAuth(secret: string): AuthContext | undefined {
    // a key revoked by another process on this store (the CLI on SQLite) is refused from the next request on
    this.changes.catchUp();
    const cached = this.cache.get(secret);
    if (cached === undefined) return undefined;
    if (cached.expires > this.now()) return cached.ctx;
    this.cache.delete(secret);
    return undefined;
  }

  /** Resolves a presented secret to its key and account, or null when unknown or deactivated. */
  async authenticate(secret: string): Promise<AuthContext | null> {
    const cached = this.cachedAuth(secret);
    if (cached) return cached;
    const hash = hashApiKey(secret);
    const now = this.now();
    const keyRow = await this.repository.findKeyByHash(hash);
    if (!keyRow || !constantTimeEqualHex(keyRow.key_hash, hash) || keyRow.deactivated_at !== null) {
      this.cache.delete(secret);
      return null;
    }
    const accountRow = await this.repository.getAccount(keyRow.account_id);
    if (!accountRow) return null;
    const ctx = { account: toAccount(accountRow), key: toKey(keyRow) };
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(secret, { ctx, expires: now + this.ttl });
    return ctx;
  }

  /** A key's context as stored now (not cached), or null when the key is deactivated or gone. */
  async contextForKey(keyId: string): Promise<AuthContext | null> {
    const keyRow = await this.repository.getKey(keyId);
    if (!keyRow || keyRow.deactivated_at !== null) return null;
    const accountRow = await this.repository.getAccount(keyRow.account_id);
    return accountRow ? { account: toAccount(accountRow), key: toKey(keyRow) } : null;
  }

  /** Drops cached auth for a key after it changed (deactivation, limits, scopes). */
  forgetKey(keyId: string): void {
    for (const [secret, entry] of this.cache) if (entry.ctx.key.id === keyId) this.cache.delete(secret);
  }

  /** Drops cached auth for every key of an account after the account changed (limit, plan, features). */
  forgetAccount(accountId: string): void {
    for (const [secret, entry] of this.cache) if (entry.ctx.account.id === accountId) this.cache.delete(secret);
  }

  billingPeriod(account: Account, now = this.now()): BillingPeriod {
    return billingPeriodAt(account.createdAt, now);
  }
}

function constantTimeEqualHex(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

// Developer keys of an organization, managed with its admin key: create (secret shown once), list, rename, limit,
// scope and deactivate (permanent). Every change drops the key from the auth cache so it takes effect at once.
import { ServiceError, invalid, notFound } from '../lib/errors.js';
import { DEFAULT_KEY_LABEL, toKey, type Account, type AccountsService, type ApiKey } from '../accounts/accounts-service.js';
import type { AdminRepository } from '../store/repositories/admin-repository.js';
import type { UsageTotals } from '../store/repositories/usage-repository.js';
import type { AccountsRepository } from '../store/repositories/accounts-repository.js';
import type { ApiKeyRow } from '../store/store.js';
import type { Scope } from './scopes.js';

/** Active developer keys an organization may hold at once (the reference's cap). */
export const MAX_ACTIVE_DEVELOPER_KEYS = 25;
export const KEY_NOT_FOUND_MESSAGE = 'Developer key not found.';

/** A key's usage limits per billing period: absent = unchanged, null = none, 0 = blocked. */
export interface KeyLimits {
  characters?: number | null;
  speechToTextMs?: number | null;
}

export interface DeveloperKeysServiceOptions {
  maxActiveKeys?: number;
}

export class DeveloperKeysService {
  private readonly maxActive: number;

  constructor(
    private readonly keys: AccountsRepository,
    private readonly accounts: AccountsService,
    private readonly repo: AdminRepository,
    options: DeveloperKeysServiceOptions = {},
  ) {
    this.maxActive = options.maxActiveKeys ?? MAX_ACTIVE_DEVELOPER_KEYS;
  }

  /**
   * Creates a developer key (`scopes` null: unrestricted); the secret is returned here and never again (only its hash
   * is stored).
   */
  async create(account: Account, input: { label?: string; scopes: Scope[] | null }): Promise<{ key: ApiKey; secret: string }> {
    const { row, secret } = this.accounts.prepareKey(account, 'developer', input.label ?? DEFAULT_KEY_LABEL, input.scopes);
    if (!(await this.repo.insertDeveloperKeyWithin(row, this.maxActive))) {
      throw invalid(
        `Bad request. Reason: At most ${this.maxActive} developer keys can be active at once. Deactivate a key before creating another.`,
      );
    }
    return { key: toKey(row), secret };
  }

  /**
   * All developer keys of the account, active and deactivated, oldest first, each with what it used in the account's
   * current billing period: the figures its limits are checked against.
   */
  async list(account: Account): Promise<{ key: ApiKey; periodUsage: UsageTotals }[]> {
    const [rows, totals] = await Promise.all([
      this.keys.listKeys(account.id, 'developer'),
      this.repo.developerKeyPeriodTotals(account.id, this.accounts.billingPeriod(account).start),
    ]);
    return rows.map((row) => ({ key: toKey(row), periodUsage: totals.get(row.id) ?? { characters: 0, speechToTextMs: 0 } }));
  }

  /** Permanent: a deactivated key never authenticates again; deactivating it twice keeps the first time. */
  async deactivate(account: Account, keyId: string): Promise<ApiKey> {
    const row = await this.find(account, keyId);
    await this.repo.deactivateKey(row.id, this.accounts.now());
    return this.changed(account, row.id);
  }

  async rename(account: Account, keyId: string, label: string): Promise<ApiKey> {
    const row = await this.find(account, keyId);
    await this.keys.updateKey(row.id, { label });
    return this.changed(account, row.id);
  }

  /** Absent fields stay as they are; null lifts a limit; 0 blocks the key. */
  async setLimits(account: Account, keyId: string, limits: KeyLimits): Promise<ApiKey> {
    const row = await this.find(account, keyId);
    await this.keys.updateKey(row.id, {
      ...(limits.characters !== undefined ? { character_limit: limits.characters } : {}),
      ...(limits.speechToTextMs !== undefined ? { speech_to_text_ms_limit: limits.speechToTextMs } : {}),
    });
    return this.changed(account, row.id);
  }

  /** Replaces the key's scopes: an array of endpoint groups, or null for an unrestricted key. */
  async setScopes(account: Account, keyId: string, scopes: Scope[] | null): Promise<ApiKey> {
    const row = await this.find(account, keyId);
    await this.keys.updateKey(row.id, { scopes: scopes === null ? null : JSON.stringify(scopes) });
    return this.changed(account, row.id);
  }

  /** Keys of other accounts, and admin keys, are indistinguishable from unknown ids. */
  private async find(account: Account, keyId: string): Promise<ApiKeyRow> {
    const row = await this.repo.getAccountKey(account.id, keyId);
    if (!row || row.kind !== 'developer') throw notFound(KEY_NOT_FOUND_MESSAGE);
    return row;
  }

  private async changed(account: Account, keyId: string): Promise<ApiKey> {
    this.accounts.forgetKey(keyId);
    const row = await this.repo.getAccountKey(account.id, keyId);
    if (!row) throw new ServiceError('not_found', KEY_NOT_FOUND_MESSAGE);
    return toKey(row);
  }
}

// Accounts and their API keys; writes to rows other nodes cache are announced on the change feed.
import type { Kysely } from 'kysely';
import type { StoreConnection } from '../connection.js';
import type { AccountsTable, ApiKeysTable, Database } from '../schema.js';

export type AccountRow = AccountsTable;
export type ApiKeyRow = ApiKeysTable;

export class AccountsRepository {
  private readonly db: Kysely<Database>;

  constructor(private readonly connection: StoreConnection) {
    this.db = connection.db;
  }

  async insertAccount(row: AccountRow): Promise<void> {
    await this.db.insertInto('accounts').values(row).execute();
  }

  async getAccount(id: string): Promise<AccountRow | undefined> {
    return this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async listAccounts(): Promise<AccountRow[]> {
    return this.db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute();
  }

  async updateAccount(id: string, changes: Partial<Omit<AccountRow, 'id'>>): Promise<void> {
    await this.connection.writeAndAnnounce({ kind: 'account', id }, (db) => db.updateTable('accounts').set(changes).where('id', '=', id).execute());
  }

  async insertKey(row: ApiKeyRow): Promise<void> {
    await this.db.insertInto('api_keys').values(row).execute();
  }

  async findKeyByHash(hash: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst();
  }

  async getKey(id: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async listKeys(accountId: string, kind?: ApiKeyRow['kind']): Promise<ApiKeyRow[]> {
    let q = this.db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId);
    if (kind) q = q.where('kind', '=', kind);
    return q.orderBy('created_at').orderBy('id').execute();
  }

  async updateKey(id: string, changes: Partial<Omit<ApiKeyRow, 'id' | 'account_id' | 'key_hash'>>): Promise<void> {
    await this.connection.writeAndAnnounce({ kind: 'key', id }, (db) => db.updateTable('api_keys').set(changes).where('id', '=', id).execute());
  }
}

// Keys the server holds in its database (created by migration 0011), shared by every node.
import type { Kysely } from 'kysely';
import type { StoreConnection } from '../connection.js';
import type { Database } from '../schema.js';

export class ServerSecretsRepository {
  private readonly db: Kysely<Database>;

  constructor(connection: StoreConnection) {
    this.db = connection.db;
  }

  async serverSecret(name: string): Promise<Buffer> {
    const row = await this.db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirst();
    if (!row) throw new Error(`server secret ${name} is missing`);
    return Buffer.from(row.value, 'hex');
  }
}

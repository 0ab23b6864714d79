// A fresh PostgreSQL database for tests that start `tolk serve` processes: each process runs its migrations there,
// and dropping it (connections forced closed) leaves nothing behind.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { TEST_POSTGRES_URL } from './harness.js';

export interface FreshDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function freshPostgresDatabase(prefix: string): Promise<FreshDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.end().catch(() => {});
    },
  };
}

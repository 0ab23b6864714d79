// A fresh PostgreSQL database on the test server (tests of whole installations: dumps, restores, upgrades), and the
// PostgreSQL client programs when they are installed (Debian package postgresql-client; scripts/setup.sh --test).
import { spawnSync } from 'node:child_process';
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
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => client.end());
    },
  };
}

/** Why pg_dump/pg_restore cannot run here, or undefined when they can. */
export function postgresClientUnavailable(): string | undefined {
  for (const program of ['pg_dump', 'pg_restore']) {
    const probe = spawnSync(program, ['--version'], { timeout: 10_000 });
    if (probe.error || probe.status !== 0) return `${program} is not installed (Debian package postgresql-client; scripts/setup.sh --test)`;
  }
  return undefined;
}

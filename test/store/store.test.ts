// Runs the store contract on SQLite always and on PostgreSQL (the server .ci/run starts) always.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { Store } from '../../src/store/store.js';
import { TEST_POSTGRES_URL, testStoreLocation } from '../helpers/harness.js';
import { storeContract } from './store.case.js';
import { repositoriesContract } from './repositories.case.js';

storeContract('sqlite');
storeContract('postgres');
repositoriesContract('sqlite');
repositoriesContract('postgres');

describe('PostgreSQL schemas sharing one database', () => {
  it('migrate while other schemas are created and dropped (nodes and tests share a database)', async () => {
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    let churning = true;
    // Another schema with a serial column appears and disappears for as long as the migrations run.
    const churn = (async () => {
      for (let i = 0; churning; i++) {
        const name = `churn_${process.pid}_${i}`;
        await admin.query(`CREATE SCHEMA ${name}; CREATE TABLE ${name}.t (id serial PRIMARY KEY, a int, b text, c text)`);
        await admin.query(`DROP SCHEMA ${name} CASCADE`);
      }
    })();
    try {
      for (let i = 0; i < 6; i++) {
        const location = testStoreLocation('postgres');
        const store = await Store.open({ url: location.url, pgSchema: location.pgSchema! });
        const tables = await store.db.introspection.getTables();
        assert.ok(tables.length > 0 && tables.every((t) => t.schema === location.pgSchema));
        await store.close({ dropSchema: true });
      }
    } finally {
      churning = false;
      await churn;
      await admin.end();
    }
  });
});

// Kysely over better-sqlite3 with prepared statements kept: the same SQL runs on the statement prepared the first time,
// a statement mid-iteration is never handed out twice, and the cache stays bounded.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { withPreparedStatements } from '../../src/store/sqlite-statements.js';

interface Tables {
  items: { id: number; name: string };
}

function open(kept?: number) {
  const sqlite = new SqliteDatabase(':memory:');
  sqlite.exec('create table items (id integer primary key, name text)');
  let prepares = 0;
  const real = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((text: string) => {
    prepares++;
    return real(text);
  }) as typeof sqlite.prepare;
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: withPreparedStatements(sqlite, kept) }) });
  return { db, prepares: () => prepares };
}

describe('SQLite statements kept for Kysely', () => {
  it('prepares a query shape once and runs it with each call’s values', async () => {
    const { db, prepares } = open();
    for (let i = 0; i < 50; i++) await db.insertInto('items').values({ id: i, name: `n${i}` }).execute();
    const names = [];
    for (let i = 0; i < 50; i += 10) names.push((await db.selectFrom('items').select('name').where('id', '=', i).executeTakeFirst())?.name);
    assert.deepEqual(names, ['n0', 'n10', 'n20', 'n30', 'n40']);
    assert.equal(prepares(), 2, 'one insert statement and one select statement');
    await db.destroy();
  });

  it('hands out a fresh statement while the kept one is mid-iteration', () => {
    const sqlite = new SqliteDatabase(':memory:');
    sqlite.exec("create table items (id integer primary key, name text); insert into items values (1, 'a'), (2, 'b')");
    const statements = withPreparedStatements(sqlite);
    const text = 'select id from items order by id';
    const kept = statements.prepare(text) as SqliteDatabase.Statement;
    assert.equal(statements.prepare(text), kept);
    const seen: unknown[] = [];
    for (const row of kept.iterate()) {
      const beside = statements.prepare(text) as SqliteDatabase.Statement;
      assert.notEqual(beside, kept);
      seen.push(row, beside.all().length);
    }
    assert.deepEqual(seen, [{ id: 1 }, 2, { id: 2 }, 2]);
    assert.equal(statements.prepare(text), kept, 'the kept one again once it is done');
    sqlite.close();
  });

  it('keeps at most the given number of statements, dropping the one unused longest', async () => {
    const { db, prepares } = open(3);
    const lookUp = (ids: number[]) => db.selectFrom('items').select('id').where('id', 'in', ids).execute();
    // four shapes (in-lists of 1–4 values) through a cache of three: the first is dropped, the fourth kept
    for (const ids of [[1], [1, 2], [1, 2, 3], [1, 2, 3, 4]]) await lookUp(ids);
    assert.equal(prepares(), 4);
    await lookUp([5, 6, 7, 8]);
    assert.equal(prepares(), 4, 'the latest shape is still prepared');
    await lookUp([9]);
    assert.equal(prepares(), 5, 'the shape unused longest was dropped and is prepared again');
    // kept now, unused longest first: the 3-, 4- and 1-value shapes. Using the 3-value one keeps it when a new shape
    // comes (dropping the oldest-inserted instead would drop it)
    await lookUp([1, 2, 3]);
    await lookUp([1, 2, 3, 4, 5]);
    assert.equal(prepares(), 6);
    await lookUp([4, 5, 6]);
    assert.equal(prepares(), 6, 'a shape used recently is kept');
    await lookUp([1, 2, 3, 4]);
    assert.equal(prepares(), 7, 'the shape unused longest was dropped');
    await db.destroy();
  });
});

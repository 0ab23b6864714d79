// Kysely's SQLite driver prepares every query's SQL anew, and SQLite parses it each time: for the short queries of a
// request that is about half their CPU. The driver is handed the connection through this cache of prepared statements.
import type SqliteDatabase from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase } from 'kysely';

/**
 * Statements kept, the one unused longest dropped first. Kysely writes the SQL of one query shape the same each time;
 * shapes that vary (an `in (…)` list of each length) take turns in what the usual ones leave.
 */
const KEPT_STATEMENTS = 500;

/** `db` for Kysely's SqliteDialect, with each SQL text prepared once. */
export function withPreparedStatements(db: SqliteDatabase.Database, kept = KEPT_STATEMENTS): KyselySqliteDatabase {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => db.close(),
    prepare(text: string) {
      const known = statements.get(text);
      if (known) {
        // A statement mid-iteration (a streamed select) cannot run a second query at once: that one gets its own.
        if (known.busy) return db.prepare(text);
        // the most recently used last: the first dropped is the one unused longest
        statements.delete(text);
        statements.set(text, known);
        return known;
      }
      const statement = db.prepare(text);
      statements.set(text, statement);
      if (statements.size > kept) statements.delete(statements.keys().next().value!);
      return statement;
    },
  };
}

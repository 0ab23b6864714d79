// A database fault for billing tests: a trigger that makes every write of a document's `charged` mark fail, so a test
// can show that the charge written in the same transaction is rolled back with it.
import { sql } from 'kysely';
import type { Store } from '../../src/store/store.js';

/** Installs the failing trigger; the returned function removes it. */
export async function failChargedMarks(store: Store): Promise<() => Promise<void>> {
  if (store.dialect === 'postgres') {
    // created in the test's own schema (the connection's search_path), dropped with it
    await sql`CREATE FUNCTION fail_charged_mark() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'charged mark refused'; END $$`.execute(store.db);
    await sql`CREATE TRIGGER fail_charged_mark BEFORE UPDATE OF charged ON documents FOR EACH ROW EXECUTE FUNCTION fail_charged_mark()`.execute(store.db);
    return async () => {
      await sql`DROP TRIGGER fail_charged_mark ON documents`.execute(store.db);
      await sql`DROP FUNCTION fail_charged_mark()`.execute(store.db);
    };
  }
  await sql`CREATE TRIGGER fail_charged_mark BEFORE UPDATE OF charged ON documents BEGIN SELECT RAISE(ABORT, 'charged mark refused'); END`.execute(store.db);
  return async () => {
    await sql`DROP TRIGGER fail_charged_mark`.execute(store.db);
  };
}

// Daily usage rollups for admin analytics: kept by a trigger on usage_events, so every ledger write (whatever code path
// makes it) updates them in the same transaction, and a year of analytics reads ~10^4 rollup rows instead of 10^6 events.
import { sql, type Kysely, type Migration } from 'kysely';
import type { SqlDialect } from '../sql-dialect.js';
import { DAY_MS } from '../schema.js';


/** The four products as rollup columns (one row per account, day and key or tag, instead of four). */
const COLUMNS = [
  ['text_characters', 'text_translation'],
  ['document_characters', 'document_translation'],
  ['improvement_characters', 'text_improvement'],
  ['speech_to_text_ms', 'speech_to_text'],
] as const;

export function adminUsageRollups(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      // SQLite: WITHOUT ROWID clusters the rows by primary key, so a range read is one covering b-tree scan.
      const clustered = dialect === 'sqlite' ? sql`without rowid` : sql``;
      for (const [table, subject] of [
        ['usage_daily_keys', 'key_id'],
        ['usage_daily_tags', 'reporting_tag'],
      ] as const) {
        let t = db.schema
          .createTable(table)
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('day', 'integer', (c) => c.notNull())
          .addColumn(subject, 'text', (c) => c.notNull());
        for (const [column] of COLUMNS) t = t.addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0));
        await t.addPrimaryKeyConstraint(`${table}_pk`, ['account_id', 'day', subject]).modifyEnd(clustered).execute();
      }

      const day = sql`created_at / ${sql.lit(DAY_MS)}`;
      const newDay = sql`new.created_at / ${sql.lit(DAY_MS)}`;
      const names = sql.raw(COLUMNS.map(([c]) => c).join(', '));
      const sums = sql.raw(COLUMNS.map(([c, p]) => `sum(case when product = '${p}' then units else 0 end) as ${c}`).join(', '));
      const newValues = sql.raw(COLUMNS.map(([, p]) => `case when new.product = '${p}' then new.units else 0 end`).join(', '));
      const add = (alias: string) => sql.raw(COLUMNS.map(([c]) => `${c} = ${alias}${c} + excluded.${c}`).join(', '));

      await sql`insert into usage_daily_keys (account_id, day, key_id, ${names})
        select account_id, ${day}, key_id, ${sums} from usage_events group by account_id, ${day}, key_id`.execute(db);
      await sql`insert into usage_daily_tags (account_id, day, reporting_tag, ${names})
        select account_id, ${day}, reporting_tag, ${sums} from usage_events where reporting_tag is not null
        group by account_id, ${day}, reporting_tag`.execute(db);

      if (dialect === 'sqlite') {
        await sql`create trigger usage_events_rollup after insert on usage_events begin
          insert into usage_daily_keys (account_id, day, key_id, ${names})
            values (new.account_id, ${newDay}, new.key_id, ${newValues})
            on conflict (account_id, day, key_id) do update set ${add('')};
          insert into usage_daily_tags (account_id, day, reporting_tag, ${names})
            select new.account_id, ${newDay}, new.reporting_tag, ${newValues} where new.reporting_tag is not null
            on conflict (account_id, day, reporting_tag) do update set ${add('')};
        end`.execute(db);
      } else {
        // SET search_path FROM CURRENT binds the function to this store's schema (tests share one database).
        await sql`create function usage_events_rollup() returns trigger language plpgsql
          set search_path from current as $$
          begin
            insert into usage_daily_keys as d (account_id, day, key_id, ${names})
              values (new.account_id, ${newDay}, new.key_id, ${newValues})
              on conflict (account_id, day, key_id) do update set ${add('d.')};
            if new.reporting_tag is not null then
              insert into usage_daily_tags as d (account_id, day, reporting_tag, ${names})
                values (new.account_id, ${newDay}, new.reporting_tag, ${newValues})
                on conflict (account_id, day, reporting_tag) do update set ${add('d.')};
            end if;
            return null;
          end $$`.execute(db);
        await sql`create trigger usage_events_rollup after insert on usage_events
          for each row execute function usage_events_rollup()`.execute(db);
      }
    },
  };
}

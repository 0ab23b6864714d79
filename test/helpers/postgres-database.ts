// The PostgreSQL client programs when they are installed (Debian package postgresql-client; scripts/setup.sh --test).
import { spawnSync } from 'node:child_process';

export { freshPostgresDatabase, type FreshDatabase } from './fresh-database.js';

/** Why pg_dump/pg_restore cannot run here, or undefined when they can. */
export function postgresClientUnavailable(): string | undefined {
  for (const program of ['pg_dump', 'pg_restore']) {
    const probe = spawnSync(program, ['--version'], { timeout: 10_000 });
    if (probe.error || probe.status !== 0) return `${program} is not installed (Debian package postgresql-client; scripts/setup.sh --test)`;
  }
  return undefined;
}

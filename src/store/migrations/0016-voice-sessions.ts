// Migration 0016: voice sessions and their one-time tokens in the database, so a session requested on one node can be
// streamed from (and reconnected through) any other.
import type { Kysely, Migration } from 'kysely';

export function voiceSessionsMigration(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('voice_sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('config', 'text', (c) => c.notNull())
        .addColumn('reporting_tag', 'text')
        .addColumn('token_hash', 'text')
        .addColumn('token_expires_at', 'bigint', (c) => c.notNull())
        .addColumn('latest_hash', 'text', (c) => c.notNull())
        .addColumn('generation', 'integer', (c) => c.notNull())
        .addColumn('connected', 'integer', (c) => c.notNull())
        .addColumn('ended', 'text')
        .addColumn('last_activity', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('voice_sessions_token').on('voice_sessions').column('token_hash').execute();
      await db.schema.createIndex('voice_sessions_activity').on('voice_sessions').column('last_activity').execute();
      await db.schema
        .createTable('voice_session_tokens')
        .addColumn('hash', 'text', (c) => c.primaryKey())
        .addColumn('session_id', 'text', (c) => c.notNull().references('voice_sessions.id').onDelete('cascade'))
        .execute();
      await db.schema.createIndex('voice_session_tokens_session').on('voice_session_tokens').column('session_id').execute();
    },
  };
}

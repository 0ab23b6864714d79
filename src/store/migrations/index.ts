// Versioned schema migrations, applied at start by Kysely's Migrator; never edit a released migration, add a new one.
// The keys are the names recorded in existing databases: they must never change.
import type { Migration } from 'kysely';
import type { SqlDialect } from '../sql-dialect.js';
import { accountsKeysUsageMigration } from './0001-accounts-keys-usage.js';
import { adminUsageRollups } from './0002-admin-usage-rollups.js';
import { customizationMigration } from './0006-customization.js';
import { documentsMigration } from './0007-documents.js';
import { documentsWatermarkMigration } from './0008-documents-watermark.js';
import { spokenTermsMigration } from './0009-spoken-terms.js';
import { documentsCustomizationMigration } from './0010-documents-customization.js';
import { serverSecretsMigration } from './0011-server-secrets.js';
import { glossaryOrderMigration } from './0012-glossary-dictionary-order.js';
import { rateLimitMigration } from './0015-rate-limit-windows.js';
import { voiceSessionsMigration } from './0016-voice-sessions.js';
import { documentsNoticeMigration } from './0017-documents-notice.js';
import { documentChunksMigration } from './0018-document-chunks.js';
import { tmJobLeasesMigration } from './0019-tm-job-leases.js';

export type { SqlDialect } from '../sql-dialect.js';

export function migrationsFor(dialect: SqlDialect): Record<string, Migration> {
  return {
    '0001_accounts_keys_usage': accountsKeysUsageMigration(dialect),
    '0002_admin_usage_rollups': adminUsageRollups(dialect),
    '0006_customization': customizationMigration(dialect),
    '0007_documents': documentsMigration(dialect),
    '0008_documents_watermark': documentsWatermarkMigration(),
    '0009_spoken_terms': spokenTermsMigration(),
    '0010_documents_customization': documentsCustomizationMigration(),
    '0011_server_secrets': serverSecretsMigration(),
    '0012_glossary_dictionary_order': glossaryOrderMigration(),
    '0015_rate_limit_windows': rateLimitMigration(dialect),
    '0016_voice_sessions': voiceSessionsMigration(),
    '0017_documents_notice': documentsNoticeMigration(),
    '0018_document_chunks': documentChunksMigration(dialect),
    '0019_tm_job_leases': tmJobLeasesMigration(),
  };
}

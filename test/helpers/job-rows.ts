// Rows of the two job tables for store-level tests: every column at its "new, waiting job" value, then the test's own.
import type { DocumentRow } from '../../src/store/repositories/document-repository.js';
import type { JobRow } from '../../src/store/repositories/memory-repository.js';

type Identity = { id: string; account_id: string; created_at: number };

/** A queued txt → es document of the key `key_id` (a key id need not exist: documents hold no foreign key on it). */
export function documentRow(row: Identity & { key_id: string } & Partial<DocumentRow>): DocumentRow {
  return {
    status: 'queued', format: 'txt', output_format: 'txt', source_lang: null,
    target_lang: 'es', formality: 'default', watermark: 0, glossary_ids: '[]', style_id: null, translation_memory_id: null,
    translation_memory_threshold: null, reporting_tag: null, key_verifier: 'v', wrapped_key: 'w', upload_bytes: 3,
    result_bytes: null, billed_characters: null, charged: 0, error_message: null, notice: null, attempts: 0,
    lease_owner: null, lease_expires_at: null, segments_total: 0, segments_done: 0, started_at: null, finished_at: null,
    ...row,
  };
}

/** A translation-memory job (an import unless the test says otherwise), not yet claimed. */
export function memoryJobRow(row: Identity & Partial<JobRow>): JobRow {
  return {
    operation: 'import', status: 'queued', memory_id: null, display_name: 'm',
    content_type: null, content_length: null, file_path: null, error_message: null, skipped_segment_count: 0,
    updated_at: row.created_at, expires_at: null, lease_owner: null, lease_expires_at: null, attempts: 0,
    ...row,
  };
}

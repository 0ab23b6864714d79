// Table types shared by both SQL dialects; times are epoch milliseconds so range queries work the same everywhere.
import type { Generated } from 'kysely';

export type Plan = 'free' | 'pro';
export type KeyKind = 'admin' | 'developer';
export type UsageProduct = 'text_translation' | 'document_translation' | 'text_improvement' | 'speech_to_text';

export interface AccountsTable {
  id: string;
  name: string;
  plan: Plan;
  /** JSON array of feature flags, e.g. ["detection"]. */
  features: string;
  /** Characters per billing period; null = unlimited. */
  character_limit: number | null;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  kind: KeyKind;
  /** SHA-256 hex of the secret; the secret itself is never stored. */
  key_hash: string;
  /** First and last four characters of the secret, for masked display in reports. */
  key_start: string;
  key_end: string;
  label: string;
  /** JSON array of scopes, null = unrestricted. */
  scopes: string | null;
  character_limit: number | null;
  speech_to_text_ms_limit: number | null;
  created_at: number;
  deactivated_at: number | null;
}

export interface UsageEventsTable {
  id: Generated<number>;
  account_id: string;
  key_id: string;
  product: UsageProduct;
  /** Characters (code points) or, for speech_to_text, milliseconds. */
  units: number;
  reporting_tag: string | null;
  created_at: number;
}

/** Running totals per subject (an account id or a key id) and billing period, kept beside the events for O(1) quota checks. */
export interface UsageCountersTable {
  subject_id: string;
  period_start: number;
  characters: number;
  speech_to_text_ms: number;
}

/** Milliseconds per UTC day: `created_at / DAY_MS` (integer division) is the day number of a ledger row. */
export const DAY_MS = 86_400_000;

/** The ledger's products as rollup columns: characters per product and speech milliseconds. */
export interface UsageRollupColumns {
  text_characters: number;
  document_characters: number;
  improvement_characters: number;
  speech_to_text_ms: number;
}

/** Ledger sums per account, UTC day (epoch day number) and key; kept by a trigger on usage_events. */
export interface UsageDailyKeysTable extends UsageRollupColumns {
  account_id: string;
  day: number;
  key_id: string;
}

/** Ledger sums of tagged events per account, UTC day and reporting tag; kept by the same trigger. */
export interface UsageDailyTagsTable extends UsageRollupColumns {
  account_id: string;
  day: number;
  reporting_tag: string;
}

// ---- customization (issue 6) and documents (issue 7). Restored after an accidental overwrite by the admin helper:
// the column lists follow customization-migration.ts and documents-migration.ts; owners, please check the types.

export interface GlossariesTable {
  id: string;
  account_id: string;
  name: string;
  /** 1 once edited through the v3 interface. */
  v3_edited: number;
  created_at: number;
}

export interface GlossaryDictionariesTable {
  glossary_id: string;
  source_lang: string;
  target_lang: string;
  entries: string;
  entry_count: number;
  updated_at: number;
  /** Order of the dictionary in its glossary (as created, then added). */
  position: Generated<number>;
}

export interface StyleRulesTable {
  id: string;
  account_id: string;
  name: string;
  language: string;
  configured_rules: string;
  custom_instructions: string;
  version: number;
  created_at: number;
  updated_at: number;
}

export interface TranslationMemoriesTable {
  id: string;
  account_id: string;
  name: string;
  source_lang: string;
  target_langs: string;
  segment_count: number;
  created_at: number;
  updated_at: number;
}

export interface TmSegmentsTable {
  id: Generated<number>;
  memory_id: string;
  target_lang: string;
  source: string;
  target: string;
}

export interface TmJobsTable {
  id: string;
  account_id: string;
  operation: string;
  status: string;
  memory_id: string | null;
  display_name: string;
  content_type: string | null;
  content_length: number | null;
  file_path: string | null;
  error_message: string | null;
  skipped_segment_count: number;
  created_at: number;
  updated_at: number;
  expires_at: number | null;
  /** The node's runner holding a `processing` job (migration 0019); taken over when the lease expired. */
  lease_owner: string | null;
  lease_expires_at: number | null;
  attempts: number;
}

export interface DocumentsTable {
  id: string;
  account_id: string;
  key_id: string;
  status: string;
  format: string;
  output_format: string;
  source_lang: string | null;
  target_lang: string;
  formality: string;
  /** 1 when enable_watermark was set (migration 0008). */
  watermark: number;
  /** JSON array of glossary ids; style rule list and translation memory (migration 0010). */
  glossary_ids: string;
  style_id: string | null;
  translation_memory_id: string | null;
  translation_memory_threshold: number | null;
  reporting_tag: string | null;
  key_verifier: string;
  wrapped_key: string | null;
  upload_bytes: number;
  result_bytes: number | null;
  billed_characters: number | null;
  charged: number;
  error_message: string | null;
  /** A done job's note on text kept untranslated (migration 0017). */
  notice: string | null;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  segments_total: number;
  segments_done: number;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
}

export interface SpokenTermsTable {
  id: string;
  account_id: string;
  name: string;
  created_at: number;
}

export interface SpokenTermListsTable {
  spoken_terms_id: string;
  /** Base language code (en, de, …). */
  lang: string;
  /** Terms joined by newlines, as the client sent them. */
  entries: string;
  entry_count: number;
  updated_at: number;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  usage_events: UsageEventsTable;
  usage_counters: UsageCountersTable;
  usage_daily_keys: UsageDailyKeysTable;
  usage_daily_tags: UsageDailyTagsTable;
  glossaries: GlossariesTable;
  glossary_dictionaries: GlossaryDictionariesTable;
  style_rules: StyleRulesTable;
  translation_memories: TranslationMemoriesTable;
  tm_segments: TmSegmentsTable;
  tm_jobs: TmJobsTable;
  documents: DocumentsTable;
  spoken_terms: SpokenTermsTable;
  spoken_term_lists: SpokenTermListsTable;
  server_secrets: ServerSecretsTable;
  document_chunks: DocumentChunksTable;
  rate_limit_windows: RateLimitWindowsTable;
  voice_sessions: VoiceSessionsTable;
  voice_session_tokens: VoiceSessionTokensTable;
}

/** Rows of stored files (src/store/byte-store.ts); created by migration 0018. */
export interface DocumentChunksTable {
  file_id: string;
  kind: string;
  seq: number;
  data: Buffer;
  created_at: number;
}

/** Keys the server holds (e.g. `url_signing`), hex; created by migration 0011. */
export interface ServerSecretsTable {
  name: string;
  value: string;
}

/** One fixed request-rate window per bucket (API key or address); migration 0015. */
export interface RateLimitWindowsTable {
  bucket: string;
  window_start: number;
  hits: number;
}

/** A voice session any node can serve (migration 0016); the live connection itself is on one node. */
export interface VoiceSessionsTable {
  id: string;
  account_id: string;
  key_id: string;
  /** JSON of the validated session request. */
  config: string;
  reporting_tag: string | null;
  /** SHA-256 of the token that may connect next (null once used), and until when. */
  token_hash: string | null;
  token_expires_at: number;
  /** SHA-256 of the most recently issued token: the one a reconnect request must present. */
  latest_hash: string;
  /** Bumped by each reconnect: a live connection of an older generation has been replaced. */
  generation: number;
  /** 1 while a node holds a live connection (such sessions are never swept). */
  connected: number;
  /** Why the session ended ('token_reused', 'ended'); null while it lives. */
  ended: string | null;
  last_activity: number;
}

/** Every token a voice session was issued: presenting a spent one again ends the session. */
export interface VoiceSessionTokensTable {
  hash: string;
  session_id: string;
}

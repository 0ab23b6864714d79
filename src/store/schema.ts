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

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  usage_events: UsageEventsTable;
  usage_counters: UsageCountersTable;
}

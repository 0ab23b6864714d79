// One place that mints identifiers and secrets, so their formats stay consistent and auditable.
import { createHash, randomBytes, randomUUID } from 'node:crypto';

export function newUuid(): string {
  return randomUUID();
}

/** Developer-key id as the reference API shapes it: two GUIDs joined by a colon. */
export function newKeyId(): string {
  return `${randomUUID()}:${randomUUID()}`;
}

export function newAccountId(): string {
  return randomUUID();
}

/**
 * An API key secret: 32 random bytes (base64url), with the `:fx` suffix that marks free-plan keys
 * (client libraries pick the free base URL from it). The entropy makes a plain SHA-256 safe to store.
 */
export function newApiKeySecret(plan: 'free' | 'pro'): string {
  const body = randomBytes(32).toString('base64url');
  return plan === 'free' ? `${body}:fx` : body;
}

export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Trace ids: 16 random bytes as hex, like a W3C trace id. */
export function newTraceId(): string {
  return randomBytes(16).toString('hex');
}

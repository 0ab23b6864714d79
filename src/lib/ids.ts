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

/**
 * Trace ids: 32 hex digits like a W3C trace id, from randomUUID (122 random bits), which draws its entropy in
 * batches; randomBytes(16) per request cost ~8 µs of the request path (bench:translate profile).
 */
export function newTraceId(): string {
  const u = randomUUID();
  return u.slice(0, 8) + u.slice(9, 13) + u.slice(14, 18) + u.slice(19, 23) + u.slice(24);
}

// Pre-signed URLs: a path and an expiry signed with the server's key (HMAC-SHA256). Upload and download links of
// jobs work without the API key, as client libraries expect of storage-style URLs (deepl-node sends none to them).
import { createHmac, timingSafeEqual } from 'node:crypto';

export type UrlCheck = 'ok' | 'invalid' | 'expired';

export class UrlSigner {
  constructor(private readonly key: Buffer) {}

  private mac(path: string, expiresAt: number): Buffer {
    return createHmac('sha256', this.key).update(`${path}\n${expiresAt}`).digest();
  }

  /** The query string (`expires=…&signature=…`) that makes `path` usable until `expiresAt` (epoch ms). */
  sign(path: string, expiresAt: number): string {
    return `expires=${expiresAt}&signature=${this.mac(path, expiresAt).toString('base64url')}`;
  }

  verify(path: string, expires: unknown, signature: unknown, now: number): UrlCheck {
    if (typeof expires !== 'string' || !/^\d{1,15}$/.test(expires) || typeof signature !== 'string') return 'invalid';
    const given = Buffer.from(signature, 'base64url');
    const expected = this.mac(path, Number(expires));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) < now ? 'expired' : 'ok';
  }
}

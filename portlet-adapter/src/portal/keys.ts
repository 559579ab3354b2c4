import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * The portal's own keys, derived from its secret with HKDF (one label per use), so that they survive
 * restarts and are shared by every instance of the portal without another secret to configure, and
 * a key for one use says nothing about another or about the secret.
 */
export class PortalKeys {
  /** AES-256-GCM key of the sealed visitor cookie (SPEC 10.2). */
  readonly visitorCookie: Buffer;
  readonly csrf: Buffer;

  constructor(secret: string) {
    const derive = (label: string) => Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'svc/portal/v1', label, 32));
    this.visitorCookie = derive('visitor-cookie v2');
    this.csrf = derive('csrf');
  }
}

export function mac(key: Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text, 'utf8').digest();
}

/** Constant-time comparison of two base64url MACs (different lengths are simply unequal). */
export function sameMac(expected: Buffer, given: string): boolean {
  const bytes = Buffer.from(given, 'base64url');
  return bytes.length === expected.length && timingSafeEqual(bytes, expected);
}

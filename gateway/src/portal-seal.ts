/**
 * Values the gateway hands to a portal and takes back, sealed so that only the gateways open them:
 * base64url(iv (12) || AES-256-GCM ciphertext || tag (16)) of a text, under K = HKDF-SHA256(the
 * portal's secret as UTF-8 bytes, empty salt, `info`, 32 bytes). Each use has its own `info`, so a
 * value sealed for one use never opens as another. During a rotation (two secrets) either opens and
 * the first seals. Used for the visitor state (visitor-state.ts) and a login's pending second step
 * (pending-seal.ts).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { PortalConfig } from './config';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** K for one portal secret and one use. */
export function portalSealKey(secret: string, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), info, 32));
}

export class PortalSeals {
  /** Portal id → its keys, the first one sealing. */
  readonly #keys: Map<string, Buffer[]>;

  constructor(
    portals: readonly PortalConfig[],
    info: string,
    private readonly maxLength: number,
  ) {
    this.#keys = new Map(portals.map((p) => [p.id, (typeof p.secret === 'string' ? [p.secret] : p.secret).map((secret) => portalSealKey(secret, info))]));
  }

  seal(portalId: string, text: string): string {
    const key = this.#keys.get(portalId)?.[0];
    if (key === undefined) throw new TypeError(`no key for portal ${portalId}`);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The text, or undefined: not a string, too long, or not sealed under this portal's keys. */
  open(portalId: string, value: unknown): string | undefined {
    if (typeof value !== 'string' || value.length > this.maxLength || !BASE64URL.test(value)) return undefined;
    const raw = Buffer.from(value, 'base64url');
    if (raw.length <= IV_BYTES + TAG_BYTES) return undefined;
    for (const key of this.#keys.get(portalId) ?? []) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        // another key (a rotation), or not ours
      }
    }
    return undefined;
  }
}

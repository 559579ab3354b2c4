/**
 * A visitor's core state travels with the visitor (SPEC section 9): the gateway keeps nothing per
 * visitor, so no flood of visitors can push one visitor's forgotten-password flow out of a table.
 * When the core sets its stateless ANON cookie on a visitor's request, the gateway answers
 * `X-Svc-Visitor-State: <sealed>`; the portal keeps the newest value in the visitor's own cookie and
 * sends it back on that visitor's later requests; the gateway opens it and uses the core cookie only
 * when it is bound to the assertion's `visitor` handle (anything else: the visitor starts fresh).
 *
 * `<sealed>` is base64url(iv (12) || AES-256-GCM ciphertext || tag (16)) of `<visitor>.<core cookie
 * value>` (`visitor` as the assertion carries it: base64url, so it holds no dot), under K =
 * HKDF-SHA256(the portal's secret as UTF-8 bytes, empty salt, info `svc visitor-state v1`, 32 bytes).
 * During a rotation (two secrets) either opens and the first seals. Replaying an older value gains
 * nothing: what must not repeat (wrong answers, the single-use reset marker) is counted by the core
 * per subject (SPEC section 4).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import type { PortalConfig } from './config';

export const VISITOR_STATE_HEADER = 'X-Svc-Visitor-State';
const INFO = 'svc visitor-state v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/**
 * Longer is not a value the gateway sealed: the core's stateless cookie stays under 4 KiB (its flow
 * data is at most 1 KiB of JSON), so its sealing stays far below this.
 */
const MAX_HEADER_LENGTH = 6 * 1024;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** K for one portal secret. */
export function visitorStateKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), INFO, 32));
}

export class VisitorStateSeals {
  /** Portal id → its keys, the first one sealing. */
  readonly #keys: Map<string, Buffer[]>;

  constructor(portals: readonly PortalConfig[]) {
    this.#keys = new Map(portals.map((p) => [p.id, (typeof p.secret === 'string' ? [p.secret] : p.secret).map(visitorStateKey)]));
  }

  /** The header value for the visitor's new core cookie value. */
  seal(principal: VerifiedPrincipal, coreCookieValue: string): string {
    const key = this.#keys.get(principal.portalId)?.[0];
    if (key === undefined) throw new TypeError(`no key for portal ${principal.portalId}`);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const sealed = Buffer.concat([cipher.update(`${principal.visitor}.${coreCookieValue}`, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /**
   * The core cookie value a request's header carries for this visitor, or undefined: no header, one
   * that does not open under the portal's keys, or one sealed for another visitor handle.
   */
  open(principal: VerifiedPrincipal, header: string | string[] | undefined): string | undefined {
    if (principal.user !== null || typeof header !== 'string' || header.length > MAX_HEADER_LENGTH || !BASE64URL.test(header)) return undefined;
    const raw = Buffer.from(header, 'base64url');
    if (raw.length <= IV_BYTES + TAG_BYTES) return undefined;
    for (const key of this.#keys.get(principal.portalId) ?? []) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
        const dot = text.indexOf('.');
        // Bound to the handle the assertion names; a value of another visitor is ignored.
        return dot > 0 && text.slice(0, dot) === principal.visitor ? text.slice(dot + 1) : undefined;
      } catch {
        // another key (a rotation), or not ours
      }
    }
    return undefined;
  }
}

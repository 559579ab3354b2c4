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
import type { VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import type { PortalConfig } from './config';
import { PortalSeals, portalSealKey } from './portal-seal';

export const VISITOR_STATE_HEADER = 'X-Svc-Visitor-State';
const INFO = 'svc visitor-state v1';
/**
 * Longer is not a value the gateway sealed: the core's stateless cookie stays under 4 KiB (its flow
 * data is at most 1 KiB of JSON), so its sealing stays far below this.
 */
const MAX_HEADER_LENGTH = 6 * 1024;

/** K for one portal secret. */
export function visitorStateKey(secret: string): Buffer {
  return portalSealKey(secret, INFO);
}

export class VisitorStateSeals {
  readonly #seals: PortalSeals;

  constructor(portals: readonly PortalConfig[]) {
    this.#seals = new PortalSeals(portals, INFO, MAX_HEADER_LENGTH);
  }

  /** The header value for the visitor's new core cookie value. */
  seal(principal: VerifiedPrincipal, coreCookieValue: string): string {
    return this.#seals.seal(principal.portalId, `${principal.visitor}.${coreCookieValue}`);
  }

  /**
   * The core cookie value a request's header carries for this visitor, or undefined: no header, one
   * that does not open under the portal's keys, or one sealed for another visitor handle.
   */
  open(principal: VerifiedPrincipal, header: string | string[] | undefined): string | undefined {
    if (principal.user !== null) return undefined;
    const text = this.#seals.open(principal.portalId, header);
    if (text === undefined) return undefined;
    const dot = text.indexOf('.');
    // Bound to the handle the assertion names; a value of another visitor is ignored.
    return dot > 0 && text.slice(0, dot) === principal.visitor ? text.slice(dot + 1) : undefined;
  }
}

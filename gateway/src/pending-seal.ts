/**
 * The `pending` of a portal login's `otp_required` (SPEC sections 9 and 15), bound to the visitor
 * handle. The core's own pending token is bound to the subject and to the gateway's client; the
 * gateway seals it (portal-seal.ts, info `svc otp-pending v1`) together with the assertion's
 * `visitor` handle, its `user` (empty for a login, the portal user for a step-up) and the core that
 * issued it, and answers that. The second step opens it only for the same portal, handle and user:
 * a pending that leaked from one portal session is of no use in another, and a step-up's pending
 * never completes a visitor's login (nor the reverse). The core still spends its token once and
 * expires it after 5 minutes; the gateway keeps nothing.
 */
import type { VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import { formatPrincipalName } from '../../common/src/principal-name';
import type { PortalConfig } from './config';
import { PortalSeals } from './portal-seal';

const INFO = 'svc otp-pending v1';
/** The core's token is a few hundred characters; its sealing with the handle and the core's URL stays far below this. */
const MAX_LENGTH = 4096;

/** What a sealed pending carries back to the gateway. */
export interface HeldPending {
  /** The core that answered otp_required (preferred for the second step). */
  core: string;
  /** The core's own pending token. */
  pending: string;
}

interface Sealed {
  v: string;
  u: string;
  c: string;
  p: string;
}

const userOf = (principal: VerifiedPrincipal) => (principal.user === null ? '' : formatPrincipalName(principal.user));

export class PendingSeals {
  readonly #seals: PortalSeals;

  constructor(portals: readonly PortalConfig[]) {
    this.#seals = new PortalSeals(portals, INFO, MAX_LENGTH);
  }

  /** The `pending` the portal receives for the core's token, bound to this assertion's handle and user. */
  seal(principal: VerifiedPrincipal, held: HeldPending): string {
    const sealed: Sealed = { v: principal.visitor, u: userOf(principal), c: held.core, p: held.pending };
    return this.#seals.seal(principal.portalId, JSON.stringify(sealed));
  }

  /** The core's token and core, when `value` was sealed by a gateway for this portal, handle and user; else undefined. */
  open(principal: VerifiedPrincipal, value: unknown): HeldPending | undefined {
    const text = this.#seals.open(principal.portalId, value);
    if (text === undefined) return undefined;
    let sealed: Partial<Sealed>;
    try {
      sealed = JSON.parse(text) as Partial<Sealed>;
    } catch {
      return undefined;
    }
    if (sealed.v !== principal.visitor || sealed.u !== userOf(principal) || typeof sealed.c !== 'string' || typeof sealed.p !== 'string') return undefined;
    return { core: sealed.c, pending: sealed.p };
  }
}

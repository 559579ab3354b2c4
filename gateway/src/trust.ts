/**
 * Portal trust (SPEC section 9): every request carries a valid `X-Svc-Principal`. A request without
 * one is 401 and reaches nothing; each failure is one audit line (event, reason, portal, peer).
 */
import type { Request } from 'express';
import {
  ASSERTION_HEADER,
  PrincipalAssertionRejected,
  verifyPrincipalAssertion,
  type VerifiedPrincipal,
} from '../../common/src/assertion/principal-assertion';
import { unixSeconds } from '../../common/src/clientcred/format';
import type { NonceStore } from '../../common/src/nonce-store';
import { principalName } from '../../common/src/principal-name';
import type { PortalConfig } from './config';
import { audit, type GatewayMetrics, type Logger } from './observability';

export interface TrustOptions {
  portals: readonly PortalConfig[];
  nonces: NonceStore;
  log: Logger;
  metrics: GatewayMetrics;
  /** Unix seconds; tests may inject. */
  now?: () => number;
}

/**
 * The cache key of a portal principal: one portal session of a user (portal, user and the assertion's
 * `visitor` handle: two portal sessions of one person never share a core session, so a password
 * change made in one revokes the other's: SPEC section 9), or one anonymous visitor of a portal.
 */
export function principalKey(principal: VerifiedPrincipal): string {
  return principal.user === null
    ? `${principal.portalId}|visitor|${principal.visitor}`
    : `${principal.portalId}|user|${principal.visitor}|${principalName(principal.user)}`;
}

/**
 * The principal a request's assertion vouches for; a rejection is audited, counted and thrown (a
 * 401 problem from the gateway's one error handler).
 */
export function portalTrust(options: TrustOptions): (req: Request) => Promise<VerifiedPrincipal> {
  const secrets = new Map(options.portals.map((p) => [p.id, typeof p.secret === 'string' ? [p.secret] : p.secret]));
  const now = options.now ?? (() => unixSeconds());
  return async (req) => {
    const header = req.headers[ASSERTION_HEADER.toLowerCase()];
    try {
      return await verifyPrincipalAssertion(typeof header === 'string' ? header : undefined, {
        method: req.method,
        pathAndQuery: req.originalUrl,
        now: now(),
        portals: (id) => secrets.get(id),
        nonces: options.nonces,
      });
    } catch (error) {
      if (error instanceof PrincipalAssertionRejected) {
        const reason = header === undefined ? 'missing' : error.reason;
        options.metrics.assertionFailures.inc({ reason });
        audit(options.log, { event: 'assertion_rejected', outcome: 'failure', reason, portal: error.portalId ?? null, peer: req.socket.remoteAddress ?? '' });
      }
      throw error;
    }
  };
}

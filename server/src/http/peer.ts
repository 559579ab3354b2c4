import type { Request } from 'express';
import { FORWARDED_FOR_HEADER, verifyForwardedFor } from '../../../common/src/assertion/forwarded-for';
import { NO_PARTIES, type Audit } from '../audit';
import type { SvcConfig } from '../config/types';

const HEADER = FORWARDED_FOR_HEADER.toLowerCase();

/**
 * The address a request's failures count against and its audit lines name (SPEC section 9, "The
 * visitor's address"): the visitor's, when the request carries an `X-Svc-Forwarded-For` that
 * verifies for a client with `allowPrincipalAssertion` (the gateway), whatever the peer's address;
 * else the last untrusted hop of `X-Forwarded-For` when the peer is one of `server.trustProxy`; else
 * the socket's peer. A header that does not verify is ignored (the request goes on as the socket's
 * peer's) and audited, so a local process that forges one gains nothing and is seen.
 */
export interface PeerDeps {
  /** The X-Svc-Forwarded-For keys of a client that may vouch for a visitor (Core.forwardedForKeys). */
  forwardedForKeys(clientId: string): readonly Buffer[] | undefined;
  now(): number;
  audit: Audit;
}

export function peerOf(deps: PeerDeps, config: SvcConfig, req: Request): string {
  // req.ip walks X-Forwarded-For even when no proxy is trusted; without one, the socket's peer is it.
  const direct = (config.server.trustProxy.length ? req.ip : req.socket.remoteAddress) ?? '';
  const header = req.headers[HEADER];
  if (header === undefined) return direct;
  const verified = verifyForwardedFor(typeof header === 'string' ? header : '', {
    method: req.method,
    // The request target as received: the path with the context root, and the query.
    pathAndQuery: req.originalUrl,
    now: Math.floor(deps.now() / 1000),
    keys: (clientId) => deps.forwardedForKeys(clientId),
  });
  if (verified.ok) return verified.address;
  // Before authentication: no session or principal yet.
  deps.audit.record({ ...NO_PARTIES, event: 'forwarded_for_ignored', outcome: 'failure', reason: verified.reason, client: verified.clientId ?? null, peer: direct });
  return direct;
}

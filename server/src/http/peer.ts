import type { Request } from 'express';
import { FORWARDED_FOR_HEADER, verifyForwardedFor } from '../../../common/src/assertion/forwarded-for';
import { NO_PARTIES } from '../audit';
import type { Core } from '../core';

const HEADER = FORWARDED_FOR_HEADER.toLowerCase();

/**
 * The address a request's failures count against and its audit lines name (SPEC section 9, "The
 * visitor's address"): the visitor's, when the request carries an `X-Svc-Forwarded-For` that
 * verifies for a client with `allowPrincipalAssertion` (the gateway), whatever the peer's address;
 * else the last untrusted hop of `X-Forwarded-For` when the peer is one of `server.trustProxy`; else
 * the socket's peer. A header that does not verify is ignored (the request goes on as the socket's
 * peer's) and audited, so a local process that forges one gains nothing and is seen.
 */
export function peerOf(core: Core, req: Request): string {
  // req.ip walks X-Forwarded-For even when no proxy is trusted; without one, the socket's peer is it.
  const direct = (core.config.server.trustProxy.length ? req.ip : req.socket.remoteAddress) ?? '';
  const header = req.headers[HEADER];
  if (header === undefined) return direct;
  const verified = verifyForwardedFor(typeof header === 'string' ? header : '', {
    method: req.method,
    // The request target as received: the path with the context root, and the query.
    pathAndQuery: req.originalUrl,
    now: Math.floor(core.now() / 1000),
    keys: (clientId) => core.forwardedForKeys(clientId),
  });
  if (verified.ok) return verified.address;
  // Before authentication: no session or principal yet.
  core.audit.record({ ...NO_PARTIES, event: 'forwarded_for_ignored', outcome: 'failure', reason: verified.reason, client: verified.clientId ?? null, peer: direct });
  return direct;
}

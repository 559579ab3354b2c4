/**
 * How the gateway tells a core whose request it forwards (SPEC section 9, "The visitor's address"):
 * `X-Svc-Forwarded-For`, signed with a key derived from the gateway client's secret, on every request
 * to a core that has a visitor address (forwarded requests and the gateway's own logins alike). The
 * core counts lockout pairs, per-address limits and registrations by it and names it in its audit;
 * a plain X-Forwarded-For, which any local process could send, counts for nothing there.
 */
import { FORWARDED_FOR_HEADER, forwardedForKey, signForwardedFor } from '../../common/src/assertion/forwarded-for';

/** The header's name as undici sends it. */
export const VISITOR_ADDRESS_HEADER = FORWARDED_FOR_HEADER.toLowerCase();

/** The header value vouching for `address` on one request: `pathAndQuery` is the core path with its context root. */
export type SignVisitorAddress = (address: string, method: string, pathAndQuery: string) => string;

/** A signer for the gateway's client (`gateway.clientId`, `gateway.secret`): the key is derived once. */
export function visitorAddressSigner(clientId: string, secret: string): SignVisitorAddress {
  const key = forwardedForKey(secret);
  return (address, method, pathAndQuery) => signForwardedFor({ clientId, key, address, method, pathAndQuery });
}

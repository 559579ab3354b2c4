/**
 * The one-time-use memory behind every replay check of svc: clientcred nonces (SPEC section 5, kept
 * 900 s) and portal assertion nonces (SPEC section 9, kept 180 s).
 *
 * It lives in `common` because both the core server and the gateway check nonces, and the gateway
 * must not import server code. Implementations: the bounded in-memory store
 * (`memory-nonce-store.ts` beside this file, one process) and the session store's (shared by every
 * instance, so that a nonce accepted by one core or gateway is refused by all the others).
 */
export interface NonceStore {
  /**
   * Records `key` for `ttlSeconds` and says whether this is the first time it is seen.
   *
   * Resolves `true` the first time (the caller may accept the request) and `false` while the key is
   * still remembered (a replay). A store that cannot remember the key must reject (for example with
   * ServiceUnavailable) rather than resolve `true`: forgetting an unexpired key would let the request
   * it protects be replayed.
   *
   * Callers namespace their keys (`clientcred|<clientId>|<nonce>`, `assertion|<portalId>|<nonce>`) so
   * that one store can serve every kind of nonce.
   */
  rememberOnce(key: string, ttlSeconds: number): Promise<boolean>;
}

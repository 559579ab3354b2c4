/**
 * The server's side of the clientcred key derivation (SPEC section 5):
 * key = PBKDF2-HMAC-SHA256(secret as UTF-8, salt = UTF-8 of `svc/clientcred/v1|` + clientId,
 * 10 000 iterations, 32 bytes).
 *
 * PBKDF2 is deliberately slow, so a key is derived once per process per (client, secret) and kept in
 * a small cache; a configuration reload with a new secret simply misses the cache and derives again.
 */
import { pbkdf2Sync } from 'node:crypto';
import { KEY_BYTES, MIN_SECRET_LENGTH, PBKDF2_ITERATIONS, keySalt } from '../../../common/src/clientcred/format';

/**
 * Entries beyond this are dropped oldest first. Dropping is harmless (the key is derived again); the
 * bound only stops a long run of reloads with changing secrets from growing memory.
 */
const MAX_CACHED_KEYS = 1024;

/**
 * `JSON.stringify([clientId, secret])` → key. JSON of a pair is unambiguous whatever characters the
 * two strings hold, and a Map iterates in insertion order, which makes eviction oldest-first.
 */
const cache = new Map<string, Buffer>();

/**
 * The 32-byte AES key of `clientId` under `secret`, derived once and then served from the cache.
 * The returned Buffer is shared: callers must not modify it.
 *
 * Throws TypeError for a caller mistake (empty client id, secret shorter than 43 characters): the
 * configuration validation should have refused such a client before any request arrives.
 */
export function deriveClientKey(secret: string, clientId: string): Buffer {
  if (typeof clientId !== 'string' || clientId.length === 0) {
    throw new TypeError('deriveClientKey: clientId must be a non-empty string');
  }
  if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) {
    throw new TypeError(`deriveClientKey: the secret of client "${clientId}" is shorter than ${MIN_SECRET_LENGTH} characters`);
  }
  const cacheKey = JSON.stringify([clientId, secret]);
  const cached = cache.get(cacheKey);
  if (cached !== undefined) return cached;

  const key = pbkdf2Sync(Buffer.from(secret, 'utf8'), Buffer.from(keySalt(clientId), 'utf8'), PBKDF2_ITERATIONS, KEY_BYTES, 'sha256');
  if (cache.size >= MAX_CACHED_KEYS) {
    const oldest = cache.keys().next();
    if (oldest.done !== true) cache.delete(oldest.value);
  }
  cache.set(cacheKey, key);
  return key;
}

/**
 * The keys of a client that holds one secret, or two during a rotation. Order is kept: the first key
 * is the one to seal with; opening tries every key.
 */
export function deriveClientKeys(secrets: readonly string[], clientId: string): Buffer[] {
  if (secrets.length === 0) throw new TypeError(`deriveClientKeys: client "${clientId}" has no secret`);
  return secrets.map((secret) => deriveClientKey(secret, clientId));
}

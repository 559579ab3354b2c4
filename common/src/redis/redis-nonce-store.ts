/**
 * The replay cache in Redis (nonce-store.ts has the rules), for processes that share nothing else there:
 * the gateways' assertion nonces (SPEC section 12: set-if-absent with the nonce's expiry, so an
 * assertion accepted by one gateway is refused by every other). One `SET key 1 NX PX ttl` per nonce:
 * atomic across instances, and every key expires on its own.
 *
 * Bounded by Redis itself: it runs with `maxmemory-policy noeviction` (trust.ts checks it at start),
 * so when it is full a write fails and the request is refused (503), never accepted by forgetting a
 * live nonce. Any Redis failure is ServiceUnavailable.
 */
import type Redis from 'ioredis';
import { ServiceUnavailable } from '../errors';
import type { NonceStore } from '../nonce-store';

export class RedisNonceStore implements NonceStore {
  /** `redis`: a connection its owner closes; `prefix`: of every key (`<prefix>n:<key>`). */
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async rememberOnce(key: string, ttlSeconds: number): Promise<boolean> {
    if (typeof key !== 'string' || key.length === 0) throw new TypeError('rememberOnce: key must be a non-empty string');
    if (!(ttlSeconds > 0) || !Number.isFinite(ttlSeconds)) throw new TypeError('rememberOnce: ttlSeconds must be a positive number');
    try {
      return (await this.redis.set(`${this.prefix}n:${key}`, '1', 'PX', Math.ceil(ttlSeconds * 1000), 'NX')) === 'OK';
    } catch (error) {
      throw new ServiceUnavailable('The replay cache is unavailable', { cause: error });
    }
  }
}

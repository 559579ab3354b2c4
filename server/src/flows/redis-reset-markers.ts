/**
 * Reset markers in Redis (reset-markers.ts has the rules), on the Redis session store's connection and
 * under its prefix, so that a marker issued by one core is consumed once across all of them: a visitor
 * whose forgotten-password requests alternate between cores finishes the flow, and a replayed cookie
 * cannot reset twice on two cores.
 *
 * Key `<prefix>m:<subject>` (URI-encoded, or hashed when long) = `<expiry ms>:<SHA-256 of the value>`,
 * PX = the marker's life. Only the hash is kept, so a dump of Redis opens no reset, and the script's
 * plain string comparison compares hashes, which tells nothing about the value itself. Expiry comes
 * from the injected clock, as in the memory variant; the PX only collects garbage. Any Redis failure
 * is ServiceUnavailable (503).
 */
import { createHash, randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { failClosed, keyPart } from '../sessions/redis-common';
import type { ResetMarkers } from './reset-markers';

/** KEYS: marker. ARGV: now ms, hash. The expiry when the live marker has this hash (and is deleted), else 0. */
const CONSUME_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if not value then return 0 end
local expires, hash = string.match(value, '^(%d+):(.*)$')
if not expires or tonumber(expires) <= tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[1])
  return 0
end
if hash ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
return tonumber(expires)`;

interface ScriptedRedis extends Redis {
  svcMarkerConsume(marker: string, now: number, hash: string): Promise<number>;
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url');

export class RedisResetMarkers implements ResetMarkers {
  readonly #redis: ScriptedRedis;
  readonly #prefix: string;
  readonly #now: () => number;

  /** `redis`: the session store's connection, which its owner closes; `prefix`: the store's. */
  constructor(redis: Redis, prefix: string, now: () => number) {
    this.#prefix = `${prefix}m:`;
    this.#now = now;
    redis.defineCommand('svcMarkerConsume', { numberOfKeys: 1, lua: CONSUME_SCRIPT });
    this.#redis = redis as ScriptedRedis;
  }

  async issue(subject: string, ttlSeconds: number): Promise<string> {
    const value = randomBytes(16).toString('base64url');
    const ttl = Math.max(1, Math.ceil(ttlSeconds * 1000));
    await failClosed('reset marker store', () => this.#redis.set(this.#key(subject), `${this.#now() + ttl}:${digest(value)}`, 'PX', ttl));
    return value;
  }

  async consume(subject: string, value: string): Promise<number | undefined> {
    const expires = await failClosed('reset marker store', () => this.#redis.svcMarkerConsume(this.#key(subject), this.#now(), digest(value)));
    return expires > 0 ? expires : undefined;
  }

  async restore(subject: string, value: string, expires: number): Promise<void> {
    const ttl = expires - this.#now();
    if (ttl <= 0) return;
    // NX: a marker issued since (a later match of the answers) wins over the one put back.
    await failClosed('reset marker store', () => this.#redis.set(this.#key(subject), `${expires}:${digest(value)}`, 'PX', ttl, 'NX'));
  }

  #key(subject: string): string {
    return `${this.#prefix}${keyPart(subject)}`;
  }
}

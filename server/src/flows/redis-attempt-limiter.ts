/**
 * Attempt limits in Redis (attempt-limiter.ts has the rules), on the Redis session store's connection
 * and under its prefix, so that every core sharing the sessions shares the counts: the registration
 * throttle, flow starts and the forgotten-password wrong-answer counter count across instances.
 *
 * Keys, under `prefix` + `t:<limiter name>:` (the key URI-encoded, or hashed when long: redis-common.ts):
 *   <key>      sorted set of granted slots (member = slot id, score = ms), at most `limit`, PX = window
 *   r:<key>    attempts refused while the slots were full, PX = as long as the slots live
 * One script takes a slot (trims the window, checks, records or counts the refusal), so concurrent
 * takes on any instance cannot pass the limit. Times come from the injected clock, as in the memory
 * variant; the TTLs only collect garbage. Any Redis failure is ServiceUnavailable (503): the attempt
 * is refused, never let through uncounted.
 */
import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { failClosed, keyPart } from '../sessions/redis-common';
import type { AttemptLimiter, AttemptLimits, Slot } from './attempt-limiter';

/**
 * KEYS: slots, refused. ARGV: now ms, window ms, limit, slot id.
 * Returns {1, 0} granted, or {0, start ms of the oldest slot that keeps the count at the limit}.
 */
const TAKE_SCRIPT = `
local now, win, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - win)
local n = redis.call('ZCARD', KEYS[1])
if n == 0 then redis.call('DEL', KEYS[2]) end
if n >= limit then
  redis.call('INCR', KEYS[2])
  redis.call('PEXPIRE', KEYS[2], math.max(1, redis.call('PTTL', KEYS[1])))
  return {0, redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')[2]}
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], win)
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], win) end
return {1, 0}`;

/** KEYS: slots, refused. ARGV: slot id. The refusals go with the last slot, as in memory. */
const RELEASE_SCRIPT = `
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('DEL', KEYS[1], KEYS[2]) end
return 0`;

/** KEYS: slots, refused. ARGV: now ms, window ms. Live slots plus refusals; nothing once no slot lives. */
const ATTEMPTS_SCRIPT = `
local live = redis.call('ZCOUNT', KEYS[1], '(' .. (tonumber(ARGV[1]) - tonumber(ARGV[2])), '+inf')
if live == 0 then return 0 end
return live + tonumber(redis.call('GET', KEYS[2]) or '0')`;

interface ScriptedRedis extends Redis {
  svcAttemptTake(slots: string, refused: string, now: number, window: number, limit: number, id: string): Promise<[number, string | number]>;
  svcAttemptRelease(slots: string, refused: string, id: string): Promise<number>;
  svcAttemptCount(slots: string, refused: string, now: number, window: number): Promise<number>;
}

export interface RedisAttemptLimiterOptions {
  /** The session store's connection; its owner closes it. */
  redis: Redis;
  /** The session store's prefix. */
  prefix: string;
  /** Names this limiter's keys apart from the others' (`registrations`, `answers`, `starts`). */
  name: string;
  limits: () => AttemptLimits;
  now: () => number;
}

export class RedisAttemptLimiter implements AttemptLimiter {
  readonly #redis: ScriptedRedis;
  readonly #prefix: string;
  readonly #limits: () => AttemptLimits;
  readonly #now: () => number;
  readonly #instance = randomBytes(6).toString('base64url');
  #sequence = 0;

  constructor(options: RedisAttemptLimiterOptions) {
    this.#prefix = `${options.prefix}t:${keyPart(options.name)}:`;
    this.#limits = options.limits;
    this.#now = options.now;
    options.redis.defineCommand('svcAttemptTake', { numberOfKeys: 2, lua: TAKE_SCRIPT });
    options.redis.defineCommand('svcAttemptRelease', { numberOfKeys: 2, lua: RELEASE_SCRIPT });
    options.redis.defineCommand('svcAttemptCount', { numberOfKeys: 2, lua: ATTEMPTS_SCRIPT });
    this.#redis = options.redis as ScriptedRedis;
  }

  async take(key: string): Promise<Slot> {
    const { limit, window } = this.#limits();
    const now = this.#now();
    const id = `${now}:${this.#instance}:${++this.#sequence}`;
    const [granted, oldest] = await this.#call(() => this.#redis.svcAttemptTake(...this.#keys(key), now, window * 1000, limit, id));
    if (granted === 1) return { granted: true, id };
    return { granted: false, retryAfter: Math.max(1, Math.ceil((Number(oldest) + window * 1000 - now) / 1000)) };
  }

  async release(key: string, id: string): Promise<void> {
    await this.#call(() => this.#redis.svcAttemptRelease(...this.#keys(key), id));
  }

  async attempts(key: string): Promise<number> {
    const window = this.#limits().window * 1000;
    return Number(await this.#call(() => this.#redis.svcAttemptCount(...this.#keys(key), this.#now(), window)));
  }

  async clear(key: string): Promise<void> {
    await this.#call(() => this.#redis.del(...this.#keys(key)));
  }

  #keys(key: string): [string, string] {
    return [`${this.#prefix}${keyPart(key)}`, `${this.#prefix}r:${keyPart(key)}`];
  }

  #call<T>(operation: () => Promise<T>): Promise<T> {
    return failClosed('attempt counter store', operation);
  }
}

/**
 * The lockout counters in Redis (lockout-store.ts has the rules), on the Redis session store's
 * connection and under its key prefix, so that every instance sharing the sessions shares the counts.
 *
 * Keys, under `prefix` (subject and address each URI-encoded, or `#` + SHA-256 when longer than 128):
 *   l:a:<address>               sorted set of failure times (member unique, score = ms), PX = window
 *   l:s:<subject>               the same for the subject from all addresses
 *   l:p:<subject>:<address>     the same for the pair
 *   l:sl:<subject>, l:pl:<subject>:<address>   the end of a lock (ms), PX = duration
 *   l:i:<subject>               sorted set of the addresses with a pair entry (for lifting), PX = max
 * Each failure set is trimmed to the window and to its limit, and the index to MAX_INDEX members, in
 * the one script that records a failure, so concurrent instances count exactly. Times come from the
 * injected clock (the same as the memory variant's); the TTLs only collect garbage.
 *
 * Any Redis failure surfaces as ServiceUnavailable (503): a login fails closed.
 */
import { createHash, randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { ServiceUnavailable, SvcError } from '../../../common/src/errors';
import type { LockoutLimits, LockoutStore, LockStarted } from './lockout-store';

export interface RedisLockoutStoreOptions {
  /** The session store's connection; its owner closes it. */
  redis: Redis;
  prefix: string;
  limits: () => LockoutLimits;
  now: () => number;
}

/** Most addresses remembered per subject for lifting; pairs beyond it still expire on their own. */
const MAX_INDEX = 10_000;

/**
 * KEYS: address set, pair set, pair lock, subject set, subject lock, index.
 * ARGV: now, window ms, duration ms, pair limit, subject limit, address limit, member, address part,
 * with subject (`1`|`0`), index cap. Returns {pair lock started, subject lock started}.
 */
const FAILURE_SCRIPT = `
local now, win, dur = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local function add(key, keep)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - win)
  redis.call('ZADD', key, now, ARGV[7])
  redis.call('ZREMRANGEBYRANK', key, 0, -(keep + 1))
  redis.call('PEXPIRE', key, win)
  return redis.call('ZCARD', key)
end
local function count(set, lock, keep)
  local n = add(set, keep)
  if tonumber(redis.call('GET', lock) or '0') <= now and n >= keep then
    redis.call('SET', lock, now + dur, 'PX', dur)
    redis.call('DEL', set)
    return 1
  end
  return 0
end
add(KEYS[1], tonumber(ARGV[6]))
if ARGV[9] ~= '1' then return {0, 0} end
local pair = count(KEYS[2], KEYS[3], tonumber(ARGV[4]))
local subject = count(KEYS[4], KEYS[5], tonumber(ARGV[5]))
redis.call('ZADD', KEYS[6], now, ARGV[8])
redis.call('ZREMRANGEBYRANK', KEYS[6], 0, -(tonumber(ARGV[10]) + 1))
redis.call('PEXPIRE', KEYS[6], math.max(win, dur))
return {pair, subject}`;

interface ScriptedRedis extends Redis {
  svcLockoutFailure(...args: (string | number)[]): Promise<[number, number]>;
}

/** A bounded key part without `:`: the value URI-encoded, or a hash of a long one. */
const part = (value: string) => (value.length <= 128 ? encodeURIComponent(value) : `#${createHash('sha256').update(value, 'utf8').digest('base64url')}`);

export class RedisLockoutStore implements LockoutStore {
  readonly #redis: ScriptedRedis;
  readonly #prefix: string;
  readonly #limits: () => LockoutLimits;
  readonly #now: () => number;
  readonly #instance = randomBytes(6).toString('base64url');
  #sequence = 0;

  constructor(options: RedisLockoutStoreOptions) {
    this.#prefix = `${options.prefix}l:`;
    this.#limits = options.limits;
    this.#now = options.now;
    options.redis.defineCommand('svcLockoutFailure', { numberOfKeys: 6, lua: FAILURE_SCRIPT });
    this.#redis = options.redis as ScriptedRedis;
  }

  async retryAfter(peer: string): Promise<number> {
    const { window, addressFailures } = this.#limits();
    const now = this.#now();
    const windowMs = window * 1000;
    const scores = await this.#call(() => this.#redis.zrangebyscore(`${this.#prefix}a:${part(peer)}`, `(${now - windowMs}`, '+inf', 'WITHSCORES'));
    const times = scores.filter((_, i) => i % 2 === 1).map(Number);
    if (times.length < addressFailures) return 0;
    // Free again when the oldest of the last `addressFailures` failures leaves the window.
    const oldest = times[times.length - addressFailures];
    return Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
  }

  async isLocked(subject: string, peer: string): Promise<boolean> {
    const now = this.#now();
    const ends = await this.#call(() => this.#redis.mget(this.#pair('pl', subject, peer), this.#subject('sl', subject)));
    return ends.some((end) => Number(end ?? 0) > now);
  }

  async recordFailure(subject: string | undefined, peer: string): Promise<LockStarted[]> {
    const { window, duration, pairFailures, subjectFailures, addressFailures } = this.#limits();
    const now = this.#now();
    const s = subject ?? '';
    const member = `${now}:${this.#instance}:${++this.#sequence}`;
    const [pair, whole] = await this.#call(() =>
      this.#redis.svcLockoutFailure(
        `${this.#prefix}a:${part(peer)}`,
        this.#pair('p', s, peer),
        this.#pair('pl', s, peer),
        this.#subject('s', s),
        this.#subject('sl', s),
        this.#subject('i', s),
        now,
        window * 1000,
        duration * 1000,
        pairFailures,
        subjectFailures,
        addressFailures,
        member,
        part(peer),
        subject === undefined ? '0' : '1',
        MAX_INDEX,
      ),
    );
    const started: LockStarted[] = [];
    if (pair === 1) started.push('pair');
    if (whole === 1) started.push('subject');
    return started;
  }

  async recordSuccess(subject: string, peer: string): Promise<void> {
    await this.#call(async () => {
      const results = await this.#redis.multi().del(this.#pair('p', subject, peer), this.#pair('pl', subject, peer)).zrem(this.#subject('i', subject), part(peer)).exec();
      if (!results) throw new Error('Redis transaction aborted');
      for (const [error] of results) if (error) throw error;
    });
  }

  async lift(subject: string): Promise<void> {
    await this.#call(async () => {
      const index = this.#subject('i', subject);
      const peers = await this.#redis.zrange(index, 0, -1);
      const pairs = peers.flatMap((p) => [`${this.#prefix}p:${part(subject)}:${p}`, `${this.#prefix}pl:${part(subject)}:${p}`]);
      return this.#redis.del(this.#subject('s', subject), this.#subject('sl', subject), index, ...pairs);
    });
  }

  #subject(kind: 's' | 'sl' | 'i', subject: string): string {
    return `${this.#prefix}${kind}:${part(subject)}`;
  }

  #pair(kind: 'p' | 'pl', subject: string, peer: string): string {
    return `${this.#prefix}${kind}:${part(subject)}:${part(peer)}`;
  }

  async #call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      if (error instanceof SvcError) throw error;
      throw new ServiceUnavailable('The lockout store is unavailable', { cause: error });
    }
  }
}

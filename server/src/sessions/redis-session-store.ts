/**
 * The shared session store over Redis (ioredis), so that several core instances (and the gateway's
 * nonce checks) see the same sessions and nonces.
 *
 * Keys, all under `prefix` (default `svc:`):
 *   s:<key>                     the session record (JSON), PX = its TTL
 *   h:<handle>                  the session's key, PX = the session's TTL (endByHandle in O(1))
 *   p:<ctx>:<uid>               Set of the principal's session keys (ids URI-encoded), PX = its longest TTL
 *   r:<key>                     `1`: a session revoked by its subject's password change, disable or delete,
 *                               PX = until the session's absolute expiry (answered `session_revoked`)
 *   sessions                    sorted set key → expiry (Redis time, ms): counts live sessions for the bound
 *   n:<nonce key>               `1`, SET NX PX (the replay cache)
 *   nonces                      sorted set nonce key → expiry: counts live nonces for the bound
 *   l:…                         the lockout counters (login/redis-lockout-store.ts), on this connection
 *   t:…                         attempt limiters (flows/redis-attempt-limiter.ts): registrations, flow
 *                               starts, wrong forgotten-password answers
 *   m:…                         reset markers (flows/redis-reset-markers.ts)
 *   changes                     the pub/sub channel of subject writes (redis-change-feed.ts)
 *   k:stateless                 the HMAC key of stateless cookies (32 random bytes, base64url), SET NX by
 *                               the first instance, no TTL: every instance signs and checks with it
 *
 * The bounds are checked and the writes made in one Lua script, so they hold across instances. Redis
 * must not evict (`maxmemory-policy noeviction`): every key here has a TTL, so a volatile-* policy would
 * silently drop live sessions and unexpired nonces. The scripts touch several keys; on a Redis Cluster
 * give the prefix a hash tag (`{svc}:`) so they share one slot. TTLs run on Redis's clock; the session
 * manager applies idle and absolute timeouts with its own clock on top.
 *
 * Any Redis failure surfaces as ServiceUnavailable (503); the cause is kept for the log.
 */
import { RedisUsedSteps } from '../otp/redis-used-steps';
import type { UsedSteps } from '../otp/used-steps';
import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { ServiceUnavailable, SvcError } from '../../../common/src/errors';
import { openRedis } from '../../../common/src/redis/connection';
import { assertNoEviction, UnsafeRedis } from '../../../common/src/redis/trust';
import type { LockoutLimits, LockoutStore } from '../login/lockout-store';
import { RedisLockoutStore } from '../login/redis-lockout-store';
import type { AttemptLimiter, AttemptLimits } from '../flows/attempt-limiter';
import { RedisAttemptLimiter } from '../flows/redis-attempt-limiter';
import type { ResetMarkers } from '../flows/reset-markers';
import { RedisResetMarkers } from '../flows/redis-reset-markers';
import type { Logger } from '../../../common/src/log';
import type { ChangeFeed } from './change-feed';
import { RedisChangeFeed } from './redis-change-feed';
import type { Principal } from './session';
import {
  DEFAULT_MAX_NONCES,
  DEFAULT_MAX_SESSIONS,
  positiveInteger,
  storeFull,
  ttlMillis,
  type SessionRecord,
  type SessionStore,
} from './session-store';

export interface RedisSessionStoreOptions {
  /** A connection to use (the caller keeps ownership and closes it); otherwise `url` is opened. */
  redis?: Redis;
  /** `redis://host:port/db`; default `redis://127.0.0.1:6379`. Ignored when `redis` is given. */
  url?: string;
  /** `AUTH` password of a connection opened from `url`. */
  password?: string;
  /** A command unanswered this long fails (ServiceUnavailable); default 2000 (common/src/redis/connection.ts). */
  commandTimeoutMs?: number;
  /** Extra ioredis options for a connection opened from `url`. */
  redisOptions?: RedisOptions;
  /** Prefix of every key. Default `svc:`. */
  prefix?: string;
  /** Most live sessions, across every instance sharing the prefix. Default 100 000. */
  maxSessions?: number;
  /** Most live nonces, across every instance sharing the prefix. Default 100 000. */
  maxNonces?: number;
}

/** Current Redis time in ms, inside a script. */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** The answer of a full area: {-1, ms until the earliest entry expires}. */
const FULL = `local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
local wait = 60000
if first[2] then wait = tonumber(first[2]) - now end
return {-1, wait}`;

/**
 * A new session of a principal holding ARGV[7] (> 0) live sessions first ends its oldest ones (by the
 * records' `created`), so that it holds fewer; members whose record expired leave the set on the way.
 * ARGV[8] is the key prefix (the members' own keys are built from it).
 */
const MAKE_ROOM = `if ARGV[6] == '1' and tonumber(ARGV[7]) > 0 then
  local live = {}
  for _, member in ipairs(redis.call('SMEMBERS', KEYS[4])) do
    local value = redis.call('GET', ARGV[8] .. 's:' .. member)
    if value then
      local ok, record = pcall(cjson.decode, value)
      local created, handle = 0, false
      if ok and type(record) == 'table' then
        created = tonumber(record.created) or 0
        if type(record.handle) == 'string' then handle = record.handle end
      end
      live[#live + 1] = {member, created, handle}
    else
      redis.call('SREM', KEYS[4], member)
    end
  end
  local excess = #live - tonumber(ARGV[7]) + 1
  if excess > 0 then
    table.sort(live, function(a, b) return a[2] < b[2] end)
    for i = 1, excess do
      redis.call('DEL', ARGV[8] .. 's:' .. live[i][1])
      redis.call('ZREM', KEYS[2], live[i][1])
      redis.call('SREM', KEYS[4], live[i][1])
      if live[i][3] then redis.call('DEL', ARGV[8] .. 'h:' .. live[i][3]) end
    end
  end
end`;

/**
 * KEYS: session, sessions zset, handle key, principal set. ARGV: json, ttl ms, maxSessions, key,
 * mode (`put` | `update`), indexed (`1` | `0`), maxPerPrincipal (0: none), prefix. Returns {1, 0}
 * stored, {0, 0} absent (update), or FULL.
 */
const PUT_SCRIPT = `${NOW}
local ttl = tonumber(ARGV[2])
local exists = redis.call('EXISTS', KEYS[1]) == 1
if not exists then
  if ARGV[5] == 'update' then return {0, 0} end
  ${MAKE_ROOM}
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
    ${FULL}
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, ARGV[4])
redis.call('SET', KEYS[3], ARGV[4], 'PX', ttl)
if ARGV[6] == '1' then
  redis.call('SADD', KEYS[4], ARGV[4])
  if redis.call('PTTL', KEYS[4]) < ttl then redis.call('PEXPIRE', KEYS[4], ttl) end
end
return {1, 0}`;

/** KEYS: nonce key, nonces zset. ARGV: ttl ms, maxNonces, member. Returns {1,0} first, {0,0} replay, or FULL. */
const REMEMBER_SCRIPT = `${NOW}
if redis.call('EXISTS', KEYS[1]) == 1 then return {0, 0} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then
  ${FULL}
end
local ttl = tonumber(ARGV[1])
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ttl) then return {0, 0} end
redis.call('ZADD', KEYS[2], now + ttl, ARGV[3])
return {1, 0}`;

type ScriptResult = [number, number];

interface ScriptedRedis extends Redis {
  svcSessionPut(...args: (string | number)[]): Promise<ScriptResult>;
  svcRememberOnce(...args: (string | number)[]): Promise<ScriptResult>;
}

export class RedisSessionStore implements SessionStore {
  readonly #redis: ScriptedRedis;
  readonly #owned: boolean;
  readonly #prefix: string;
  readonly #maxSessions: number;
  readonly #maxNonces: number;
  #closed = false;

  constructor(options: RedisSessionStoreOptions = {}) {
    this.#prefix = options.prefix ?? 'svc:';
    this.#maxSessions = positiveInteger(options.maxSessions ?? DEFAULT_MAX_SESSIONS, 'RedisSessionStore: maxSessions');
    this.#maxNonces = positiveInteger(options.maxNonces ?? DEFAULT_MAX_NONCES, 'RedisSessionStore: maxNonces');
    this.#owned = options.redis === undefined;
    // An opened connection absorbs its error events: failures reach callers as ServiceUnavailable.
    const redis =
      options.redis ??
      openRedis({ url: options.url ?? 'redis://127.0.0.1:6379', password: options.password, commandTimeoutMs: options.commandTimeoutMs }, options.redisOptions);
    redis.defineCommand('svcSessionPut', { numberOfKeys: 4, lua: PUT_SCRIPT });
    redis.defineCommand('svcRememberOnce', { numberOfKeys: 2, lua: REMEMBER_SCRIPT });
    this.#redis = redis as ScriptedRedis;
  }

  async get(key: string): Promise<SessionRecord | undefined> {
    return this.#call(async () => parseRecord(await this.#redis.get(this.#sessionKey(key))));
  }

  async put(key: string, record: SessionRecord, ttlSeconds: number, maxPerPrincipal?: number): Promise<void> {
    const ttl = ttlMillis(ttlSeconds);
    const max = maxPerPrincipal === undefined ? 0 : positiveInteger(maxPerPrincipal, 'put: maxPerPrincipal');
    return this.#call(async () => {
      await this.#write('put', key, record, ttl, max);
    });
  }

  async update(key: string, record: SessionRecord, ttlSeconds: number): Promise<boolean> {
    const ttl = ttlMillis(ttlSeconds);
    return this.#call(() => this.#write('update', key, record, ttl));
  }

  async delete(key: string): Promise<boolean> {
    return this.#call(() => this.#delete(key));
  }

  async deleteByPrincipal(contextId: string, uniqueId: string, exceptKey?: string, revokeFor?: (record: SessionRecord) => number): Promise<number> {
    return this.#call(async () => {
      const index = this.#principalKey({ contextId, uniqueId });
      const keys = (await this.#redis.smembers(index)).filter((key) => key !== exceptKey);
      if (keys.length === 0) return 0;
      const ended = await Promise.all(keys.map((key) => this.#remove(key)));
      // Members whose session had already expired are dropped from the index too.
      await this.#redis.srem(index, ...keys);
      if (revokeFor) {
        const revocations = this.#redis.multi();
        ended.forEach(({ deleted, record }, i) => {
          const ms = deleted && record !== undefined ? Math.ceil(revokeFor(record)) : 0;
          if (ms > 0) revocations.set(this.#revokedKey(keys[i]), '1', 'PX', ms);
        });
        if (revocations.length > 0) await revocations.exec();
      }
      return ended.filter(({ deleted }) => deleted).length;
    });
  }

  async isRevoked(key: string): Promise<boolean> {
    return this.#call(async () => (await this.#redis.exists(this.#revokedKey(key))) === 1);
  }

  async deleteByHandle(handle: string): Promise<boolean> {
    return this.#call(async () => {
      const key = await this.#redis.get(`${this.#prefix}h:${handle}`);
      if (key === null) return false;
      const record = parseRecord(await this.#redis.get(this.#sessionKey(key)));
      // The handle key outlives nothing it names, but check anyway before deleting.
      return record !== undefined && record.handle === handle ? this.#delete(key) : false;
    });
  }

  async list(limit: number): Promise<SessionRecord[]> {
    if (!Number.isSafeInteger(limit) || limit < 0) throw new TypeError('list: limit must be a non-negative integer');
    return this.#call(async () => {
      if (limit === 0) return [];
      const keys = await this.#redis.zrangebyscore(this.#zset(), await this.#redisNow(), '+inf', 'LIMIT', 0, limit);
      if (keys.length === 0) return [];
      const values = await this.#redis.mget(keys.map((key) => this.#sessionKey(key)));
      return values.map(parseRecord).filter((r): r is SessionRecord => r !== undefined);
    });
  }

  async size(): Promise<number> {
    return this.#call(async () => {
      await this.#redis.zremrangebyscore(this.#zset(), '-inf', await this.#redisNow());
      return this.#redis.zcard(this.#zset());
    });
  }

  async rememberOnce(key: string, ttlSeconds: number): Promise<boolean> {
    if (typeof key !== 'string' || key.length === 0) throw new TypeError('rememberOnce: key must be a non-empty string');
    const ttl = ttlMillis(ttlSeconds);
    return this.#call(async () => {
      const [status, wait] = await this.#redis.svcRememberOnce(`${this.#prefix}n:${key}`, `${this.#prefix}nonces`, ttl, this.#maxNonces, key);
      if (status === -1) throw storeFull('nonce', wait);
      return status === 1;
    });
  }

  /** Refuses a Redis that may evict (common/src/redis/trust.ts); an unreachable one stops the start too. */
  async open(): Promise<void> {
    const what = `sessions.redis (${redisLabel(this.#redis)})`;
    try {
      await assertNoEviction(this.#redis, what);
    } catch (error) {
      if (error instanceof UnsafeRedis) throw error;
      throw new Error(`${what} cannot be used: ${(error as Error).message}`, { cause: error });
    }
  }

  async ping(): Promise<void> {
    return this.#call(async () => {
      await this.#redis.ping();
    });
  }

  /** Lockout counters on this store's connection, under its prefix (`l:` keys). */
  lockoutStore(limits: () => LockoutLimits, now: () => number): LockoutStore {
    return new RedisLockoutStore({ redis: this.#redis, prefix: this.#prefix, limits, now });
  }

  /** An attempt limiter on this store's connection, under its prefix (`t:<name>:` keys). */
  attemptLimiter(name: string, limits: () => AttemptLimits, now: () => number): AttemptLimiter {
    return new RedisAttemptLimiter({ redis: this.#redis, prefix: this.#prefix, name, limits, now });
  }

  /** Reset markers on this store's connection, under its prefix (`m:` keys). */
  resetMarkers(now: () => number): ResetMarkers {
    return new RedisResetMarkers(this.#redis, this.#prefix, now);
  }

  /** The last accepted second-factor steps on this store's connection, under its prefix (`o:` keys). */
  usedSteps(): UsedSteps {
    return new RedisUsedSteps(this.#redis, this.#prefix);
  }

  /** Subject writes published on `<prefix>changes`, heard on a connection of the feed's own. */
  changeFeed(log?: Logger): ChangeFeed {
    return new RedisChangeFeed(this.#redis, this.#prefix, log);
  }

  statelessKey(use: (key: Buffer) => void): Promise<void> {
    return this.#watchSharedKey('stateless', use);
  }

  decoyKey(use: (key: Buffer) => void): Promise<void> {
    return this.#watchSharedKey('decoy', use);
  }

  /**
   * Gives `use` the shared key `<prefix>k:<name>` now, and again whenever it changes. Redis keeps
   * nothing on disk, so after a restart the key is gone: on every reconnection this instance writes
   * its key back (SET NX), or adopts the one another instance wrote first, so that cores started later
   * use the same key.
   */
  async #watchSharedKey(name: string, use: (key: Buffer) => void): Promise<void> {
    let current = await this.#call(() => this.#sharedKey(name, randomBytes(32).toString('base64url')));
    use(current);
    this.#redis.on('ready', () => {
      if (this.#closed) return;
      this.#sharedKey(name, current.toString('base64url')).then(
        (key) => {
          if (key.equals(current)) return;
          current = key;
          use(key);
        },
        () => {}, // Redis went away again: the next reconnection tries again
      );
    });
  }

  /** SET NX `candidate` as the shared key `name`, then the key there (ours, or one written first). */
  async #sharedKey(name: string, candidate: string): Promise<Buffer> {
    const key = `${this.#prefix}k:${name}`;
    await this.#redis.set(key, candidate, 'NX');
    const value = await this.#redis.get(key);
    const bytes = Buffer.from(value ?? '', 'base64url');
    if (bytes.length < 32) throw new ServiceUnavailable(`The session store's ${key} is not a key of 32 bytes`);
    return bytes;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#owned || this.#redis.status === 'end') return;
    try {
      await this.#redis.quit();
    } catch {
      // disconnect() on an ended connection would start a new one: only call it on a live one.
      if ((this.#redis.status as string) !== 'end') this.#redis.disconnect();
    }
  }

  async #write(mode: 'put' | 'update', key: string, record: SessionRecord, ttl: number, maxPerPrincipal = 0): Promise<boolean> {
    const principal = record.principal;
    const [status, wait] = await this.#redis.svcSessionPut(
      this.#sessionKey(key),
      this.#zset(),
      `${this.#prefix}h:${record.handle}`,
      principal ? this.#principalKey(principal) : `${this.#prefix}p:`,
      JSON.stringify(record),
      ttl,
      this.#maxSessions,
      key,
      mode,
      principal ? '1' : '0',
      maxPerPrincipal,
      this.#prefix,
    );
    if (status === -1) throw storeFull('session', wait);
    return status === 1;
  }

  /** Removes a session and its index entries. A record's handle and principal never change. */
  async #delete(key: string): Promise<boolean> {
    return (await this.#remove(key)).deleted;
  }

  /** `#delete`, also resolving the record that was there (undefined when it was missing or unreadable). */
  async #remove(key: string): Promise<{ deleted: boolean; record?: SessionRecord }> {
    const record = parseRecord(await this.#redis.get(this.#sessionKey(key)));
    const multi = this.#redis.multi().del(this.#sessionKey(key)).zrem(this.#zset(), key);
    if (record) {
      multi.del(`${this.#prefix}h:${record.handle}`);
      if (record.principal) multi.srem(this.#principalKey(record.principal), key);
    }
    const results = await multi.exec();
    if (!results) throw new Error('Redis transaction aborted');
    const [error, deleted] = results[0];
    if (error) throw error;
    return { deleted: deleted === 1, record };
  }

  async #redisNow(): Promise<number> {
    const [seconds, micros] = await this.#redis.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  async #call<T>(operation: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new ServiceUnavailable('The session store is closed');
    try {
      return await operation();
    } catch (error) {
      if (error instanceof SvcError) throw error;
      throw new ServiceUnavailable('The session store is unavailable', { cause: error });
    }
  }

  #sessionKey(key: string): string {
    return `${this.#prefix}s:${key}`;
  }

  #revokedKey(key: string): string {
    return `${this.#prefix}r:${key}`;
  }

  #zset(): string {
    return `${this.#prefix}sessions`;
  }

  #principalKey(principal: Principal): string {
    return `${this.#prefix}p:${encodeURIComponent(principal.contextId)}:${encodeURIComponent(principal.uniqueId)}`;
  }
}

/** host:port of a connection, for messages (never its password). */
function redisLabel(redis: Redis): string {
  return `${redis.options.host ?? '?'}:${redis.options.port ?? '?'}`;
}

/** A stored record, or undefined for a missing or unreadable value (an unreadable one counts as absent). */
function parseRecord(value: string | null): SessionRecord | undefined {
  if (value === null) return undefined;
  try {
    const record = JSON.parse(value) as SessionRecord;
    if (typeof record !== 'object' || record === null || typeof record.handle !== 'string' || typeof record.type !== 'string') return undefined;
    return record;
  } catch {
    return undefined;
  }
}

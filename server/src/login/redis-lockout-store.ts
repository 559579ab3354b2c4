/**
 * The lockout counters in Redis (lockout-store.ts has the rules), on the Redis session store's
 * connection and under its key prefix, so that every instance sharing the sessions shares the counts.
 *
 * Keys, under `prefix` (subject and address each URI-encoded, or `#` + SHA-256 when longer than 128):
 *   l:a:<address>               sorted set of attempts (member = the attempt's id, score = ms), PX = window
 *   l:s:<subject>               the same for the subject from all addresses
 *   l:p:<subject>:<address>     the same for the pair
 *   l:sl:<subject>, l:pl:<subject>:<address>   a lock: `<end ms>:<id of the attempt that started it>`,
 *                               PX = duration
 *   l:i:<subject>               sorted set of the addresses with a pair entry (for lifting), PX = max
 * Each set holds at most as many attempts as the largest limit (enough to decide, and exact up to there).
 * One script reserves an attempt (checks, counts, trims to the window and the bound, starts locks) and
 * one releases it, so concurrent instances count exactly and no attempt passes a limit that another
 * reached. Times come from the injected clock (the same as the memory variant's); the TTLs only
 * collect garbage.
 *
 * Any Redis failure surfaces as ServiceUnavailable (503): a login fails closed.
 */
import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { failClosed, keyPart } from '../sessions/redis-common';
import { secondsUntilFree, type LockStatus, type LockoutCounts, type LockoutLimits, type LockoutStore, type LockStarted, type Reservation, type Throttled } from './lockout-store';

export interface RedisLockoutStoreOptions {
  /** The session store's connection; its owner closes it. */
  redis: Redis;
  prefix: string;
  limits: () => LockoutLimits;
  now: () => number;
}

/** Most addresses remembered per subject for lifting; pairs beyond it still expire on their own. */
const MAX_INDEX = 10_000;

/** Per subject, in KEYS after the address set: pair set, pair lock, subject set, subject lock, index. */
const PER_SUBJECT = 5;

/**
 * KEYS: address set, then PER_SUBJECT keys for each subject.
 * ARGV: now, window ms, duration ms, pair limit, subject limit, address limit, attempt id, lock value,
 * address part, index cap.
 * Returns {-1, oldest ms} when the address is throttled (nothing counted), else {locked, then per
 * subject: pair lock started, subject lock started}.
 */
const RESERVE_SCRIPT = `
local now, win, dur = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local pairLimit, subjectLimit, addressLimit = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local id, lock = ARGV[7], ARGV[8]
local function live(set)
  redis.call('ZREMRANGEBYSCORE', set, '-inf', now - win)
  return redis.call('ZCARD', set)
end
local function held(key)
  local value = redis.call('GET', key)
  return value ~= false and tonumber(string.match(value, '^%d+')) > now
end
local keep = math.max(pairLimit, subjectLimit, addressLimit)
local function count(set)
  live(set)
  redis.call('ZADD', set, now, id)
  redis.call('ZREMRANGEBYRANK', set, 0, -(keep + 1))
  redis.call('PEXPIRE', set, win)
  return redis.call('ZCARD', set)
end
local n = live(KEYS[1])
if n >= addressLimit then
  return {-1, redis.call('ZRANGE', KEYS[1], n - addressLimit, n - addressLimit, 'WITHSCORES')[2]}
end
count(KEYS[1])
local before, locked = {}, 0
for i = 2, #KEYS, ${PER_SUBJECT} do
  before[i] = {held(KEYS[i + 1]), held(KEYS[i + 3])}
  if before[i][1] or before[i][2] then locked = 1 end
end
local result = {locked}
for i = 2, #KEYS, ${PER_SUBJECT} do
  local pair, subject = 0, 0
  if count(KEYS[i]) >= pairLimit and not before[i][1] then
    redis.call('SET', KEYS[i + 1], lock, 'PX', dur)
    pair = 1
  end
  if count(KEYS[i + 2]) >= subjectLimit and not before[i][2] then
    redis.call('SET', KEYS[i + 3], lock, 'PX', dur)
    subject = 1
  end
  redis.call('ZADD', KEYS[i + 4], now, ARGV[9])
  redis.call('ZREMRANGEBYRANK', KEYS[i + 4], 0, -(tonumber(ARGV[10]) + 1))
  redis.call('PEXPIRE', KEYS[i + 4], math.max(win, dur))
  table.insert(result, pair)
  table.insert(result, subject)
end
return result`;

/**
 * KEYS: as RESERVE_SCRIPT's. ARGV: attempt id, address part, the succeeding subject's position (from 1; 0: none).
 * Takes the attempt out of every counter and lifts the locks it started; clears the succeeding pair.
 */
const RELEASE_SCRIPT = `
local id = ARGV[1]
local function unlock(key)
  local value = redis.call('GET', key)
  if value and string.match(value, '^%d+:(.*)$') == id then redis.call('DEL', key) end
end
redis.call('ZREM', KEYS[1], id)
local position = 0
for i = 2, #KEYS, ${PER_SUBJECT} do
  position = position + 1
  if position == tonumber(ARGV[3]) then
    redis.call('DEL', KEYS[i], KEYS[i + 1])
    redis.call('ZREM', KEYS[i + 4], ARGV[2])
  else
    redis.call('ZREM', KEYS[i], id)
    unlock(KEYS[i + 1])
  end
  redis.call('ZREM', KEYS[i + 2], id)
  unlock(KEYS[i + 3])
end
return 0`;

/**
 * KEYS: per subject, its set, its lock and its address index. ARGV: now, window ms, the pair lock
 * key's prefix, then each subject's key part. Returns per subject: failures within the window, the end
 * (ms) of its lock if one holds, else 0, and the latest end of its pairs' locks that hold, else 0. The
 * pair locks' keys are made here from the index (a single Redis, as the session store requires).
 */
const STATUS_SCRIPT = `
local now, win, pairPrefix = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local function ending(value)
  if not value then return 0 end
  local at = tonumber(string.match(value, '^%d+'))
  if at > now then return at end
  return 0
end
local result = {}
for i = 1, #KEYS, 3 do
  local subject = ARGV[3 + (i + 2) / 3]
  table.insert(result, redis.call('ZCOUNT', KEYS[i], '(' .. (now - win), '+inf'))
  table.insert(result, ending(redis.call('GET', KEYS[i + 1])))
  local latest = 0
  for _, address in ipairs(redis.call('ZRANGE', KEYS[i + 2], 0, -1)) do
    latest = math.max(latest, ending(redis.call('GET', pairPrefix .. subject .. ':' .. address)))
  end
  table.insert(result, latest)
end
return result`;

interface ScriptedRedis extends Redis {
  svcLockoutReserve(numberOfKeys: number, ...args: (string | number)[]): Promise<(number | string)[]>;
  svcLockoutRelease(numberOfKeys: number, ...args: (string | number)[]): Promise<number>;
  svcLockoutStatus(numberOfKeys: number, ...args: (string | number)[]): Promise<number[]>;
}


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
    // No numberOfKeys: the number of subjects varies, so each call passes its key count first.
    options.redis.defineCommand('svcLockoutReserve', { lua: RESERVE_SCRIPT });
    options.redis.defineCommand('svcLockoutRelease', { lua: RELEASE_SCRIPT });
    options.redis.defineCommand('svcLockoutStatus', { lua: STATUS_SCRIPT });
    this.#redis = options.redis as ScriptedRedis;
  }

  async reserve(subjects: readonly string[], peer: string): Promise<Reservation | Throttled> {
    const { window, duration, pairFailures, subjectFailures, addressFailures } = this.#limits();
    const now = this.#now();
    const unique = [...new Set(subjects)];
    const id = `${now}:${this.#instance}:${++this.#sequence}`;
    const keys = this.#keys(unique, peer);
    const args = [now, window * 1000, duration * 1000, pairFailures, subjectFailures, addressFailures, id, `${now + duration * 1000}:${id}`, keyPart(peer), MAX_INDEX];
    const [locked, ...rest] = (await this.#call(() => this.#redis.svcLockoutReserve(keys.length, ...keys, ...args))).map(Number);
    if (locked === -1) return { throttled: true, retryAfter: secondsUntilFree(rest[0], window * 1000, now) };
    const started: LockStarted[] = [];
    unique.forEach((subject, i) => {
      if (rest[2 * i] === 1) started.push({ kind: 'pair', subject });
      if (rest[2 * i + 1] === 1) started.push({ kind: 'subject', subject });
    });
    return { throttled: false, id, subjects: unique, peer, locked: locked === 1, started };
  }

  async release(reservation: Reservation, subject?: string): Promise<void> {
    const keys = this.#keys(reservation.subjects, reservation.peer);
    const position = subject === undefined ? 0 : reservation.subjects.indexOf(subject) + 1;
    await this.#call(() => this.#redis.svcLockoutRelease(keys.length, ...keys, reservation.id, keyPart(reservation.peer), position));
  }

  async lift(subject: string): Promise<void> {
    await this.#call(async () => {
      const index = this.#subject('i', subject);
      const peers = await this.#redis.zrange(index, 0, -1);
      const pairs = peers.flatMap((p) => [`${this.#prefix}p:${keyPart(subject)}:${p}`, `${this.#prefix}pl:${keyPart(subject)}:${p}`]);
      return this.#redis.del(this.#subject('s', subject), this.#subject('sl', subject), index, ...pairs);
    });
  }

  async statuses(subjects: readonly string[]): Promise<Map<string, LockStatus>> {
    const answer = new Map<string, LockStatus>();
    if (subjects.length === 0) return answer;
    const keys = subjects.flatMap((s) => [this.#subject('s', s), this.#subject('sl', s), this.#subject('i', s)]);
    const args = [this.#now(), this.#limits().window * 1000, `${this.#prefix}pl:`, ...subjects.map((s) => keyPart(s))];
    const values = (await this.#call(() => this.#redis.svcLockoutStatus(keys.length, ...keys, ...args))).map(Number);
    subjects.forEach((subject, i) => {
      const until = Math.max(values[3 * i + 1], values[3 * i + 2]);
      answer.set(subject, { locked: until > 0, lockedUntil: until > 0 ? until : null, failures: values[3 * i] });
    });
    return answer;
  }

  async counts(subject: string, peer: string): Promise<LockoutCounts> {
    const since = `(${this.#now() - this.#limits().window * 1000}`;
    const [address, pair, whole] = await this.#call(() =>
      Promise.all([this.#address(peer), this.#pair('p', subject, peer), this.#subject('s', subject)].map((key) => this.#redis.zcount(key, since, '+inf'))),
    );
    return { address, pair, subject: whole };
  }

  /** The address set, then PER_SUBJECT keys for each subject, in the scripts' order. */
  #keys(subjects: readonly string[], peer: string): string[] {
    return [this.#address(peer), ...subjects.flatMap((s) => [this.#pair('p', s, peer), this.#pair('pl', s, peer), this.#subject('s', s), this.#subject('sl', s), this.#subject('i', s)])];
  }

  #address(peer: string): string {
    return `${this.#prefix}a:${keyPart(peer)}`;
  }

  #subject(kind: 's' | 'sl' | 'i', subject: string): string {
    return `${this.#prefix}${kind}:${keyPart(subject)}`;
  }

  #pair(kind: 'p' | 'pl', subject: string, peer: string): string {
    return `${this.#prefix}${kind}:${keyPart(subject)}:${keyPart(peer)}`;
  }

  #call<T>(operation: () => Promise<T>): Promise<T> {
    return failClosed('lockout store', operation);
  }
}

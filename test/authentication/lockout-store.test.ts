/**
 * The LockoutStore behaviour, run against each variant: memory, and Redis (a real one at
 * SVC_TEST_REDIS_URL, default redis://127.0.0.1:6379; skipped with a message when absent, unless
 * SVC_TEST_REQUIRE_ALL=1). Every Redis run uses its own key prefix and deletes its keys afterwards.
 * Time is the injected clock: nothing waits.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { ServiceUnavailable } from '../../common/src/errors';
import type { LockoutLimits, LockoutStore } from '../../server/src/login/lockout-store';
import { MemoryLockoutStore } from '../../server/src/login/memory-lockout-store';
import { RedisLockoutStore } from '../../server/src/login/redis-lockout-store';
import { describeWithService, REDIS_URL, redisRequirement } from '../helpers/services';
import { suiteRedis } from '../helpers/redis-keys';

const MINUTE = 60_000;
const LIMITS: LockoutLimits = { window: 900, duration: 900, pairFailures: 5, subjectFailures: 50, addressFailures: 100 };

interface Clock {
  at: number;
}
type Make = (clock: Clock) => LockoutStore;

async function fail(store: LockoutStore, subject: string | undefined, peer: string, times: number): Promise<string[]> {
  const started: string[] = [];
  for (let i = 0; i < times; i++) started.push(...(await store.recordFailure(subject, peer)));
  return started;
}

function lockoutBehaviour(make: Make): void {
  let clock: Clock;
  let store: LockoutStore;
  beforeEach(() => {
    clock = { at: Date.UTC(2026, 0, 1) };
    store = make(clock);
  });

  it('5 failures lock the pair for the duration, at the 5th, and not the other addresses', async () => {
    expect(await fail(store, 'ctx/a', '10.0.0.1', 4)).toEqual([]);
    expect(await store.isLocked('ctx/a', '10.0.0.1')).toBe(false);
    expect(await store.recordFailure('ctx/a', '10.0.0.1')).toEqual(['pair']);
    expect(await store.isLocked('ctx/a', '10.0.0.1')).toBe(true);
    expect(await store.isLocked('ctx/a', '10.0.0.2')).toBe(false);
    expect(await store.isLocked('ctx/b', '10.0.0.1')).toBe(false);
    clock.at += 15 * MINUTE - 1;
    expect(await store.isLocked('ctx/a', '10.0.0.1')).toBe(true);
    clock.at += 1;
    expect(await store.isLocked('ctx/a', '10.0.0.1')).toBe(false);
  });

  it('failures older than the window do not count; a success clears the pair count', async () => {
    await fail(store, 'ctx/a', '10.0.0.1', 4);
    clock.at += 15 * MINUTE;
    expect(await fail(store, 'ctx/a', '10.0.0.1', 4)).toEqual([]);
    await store.recordSuccess('ctx/a', '10.0.0.1');
    expect(await fail(store, 'ctx/a', '10.0.0.1', 4)).toEqual([]);
    expect(await store.isLocked('ctx/a', '10.0.0.1')).toBe(false);
  });

  it('50 failures from all addresses lock the subject; lifting clears subject and pair locks', async () => {
    expect(await fail(store, 'ctx/a', '10.1.0.1', 5)).toEqual(['pair']);
    for (let i = 0; i < 44; i++) expect(await store.recordFailure('ctx/a', `10.2.0.${i}`)).toEqual([]);
    expect(await store.recordFailure('ctx/a', '10.3.0.1')).toEqual(['subject']);
    expect(await store.isLocked('ctx/a', '10.9.9.9')).toBe(true);
    expect(await store.isLocked('ctx/b', '10.9.9.9')).toBe(false);
    await store.lift('ctx/a');
    expect(await store.isLocked('ctx/a', '10.9.9.9')).toBe(false);
    expect(await store.isLocked('ctx/a', '10.1.0.1')).toBe(false);
    expect(await fail(store, 'ctx/a', '10.1.0.1', 4)).toEqual([]);
  });

  it('100 failures from one address throttle it until the oldest leaves the window', async () => {
    await fail(store, undefined, '10.5.0.1', 99);
    expect(await store.retryAfter('10.5.0.1')).toBe(0);
    clock.at += 5 * MINUTE;
    await store.recordFailure('ctx/x', '10.5.0.1');
    expect(await store.retryAfter('10.5.0.1')).toBe(600);
    expect(await store.retryAfter('10.5.0.2')).toBe(0);
    clock.at += 10 * MINUTE;
    expect(await store.retryAfter('10.5.0.1')).toBe(0);
  });
}

describe('MemoryLockoutStore', () => {
  lockoutBehaviour((clock) => new MemoryLockoutStore(() => LIMITS, () => clock.at));
});

describeWithService(redisRequirement(), 'RedisLockoutStore', () => {
  const runPrefix = `svc-test:lockout:${process.pid}:${randomBytes(6).toString('hex')}:`;
  const admin = suiteRedis(runPrefix);
  let stores = 0;
  const make = (clock: Clock, prefix = `${runPrefix}${++stores}:`) => new RedisLockoutStore({ redis: admin(), prefix, limits: () => LIMITS, now: () => clock.at });

  lockoutBehaviour((clock) => make(clock));

  it('counts exactly across connections: concurrent failures start one lock', async () => {
    const clock = { at: Date.UTC(2026, 0, 1) };
    const prefix = `${runPrefix}shared:`;
    const other = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      const a = make(clock, prefix);
      const b = new RedisLockoutStore({ redis: other, prefix, limits: () => LIMITS, now: () => clock.at });
      const started = await Promise.all([...Array(12).keys()].map((i) => (i % 2 ? a : b).recordFailure('ctx/c', '10.0.0.1')));
      expect(started.flat()).toEqual(['pair']);
      expect(await b.isLocked('ctx/c', '10.0.0.1')).toBe(true);
    } finally {
      await other.quit();
    }
  });

  it('keeps every key bounded, with a TTL, under the given prefix', async () => {
    const clock = { at: Date.UTC(2026, 0, 1) };
    const prefix = `${runPrefix}bounded:`;
    const store = make(clock, prefix);
    const long = `name:${'x'.repeat(5000)}`;
    await fail(store, long, '10.0.0.1', 7);
    await fail(store, 'ctx/d', '10.0.0.1', 3);
    const keys = (await admin().keys(`${prefix}*`)).sort();
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) {
      expect(k.startsWith(`${prefix}l:`)).toBe(true);
      expect(k.length).toBeLessThan(prefix.length + 200);
      expect(await admin().pttl(k)).toBeGreaterThan(0);
      if ((await admin().type(k)) === 'zset') expect(await admin().zcard(k)).toBeLessThanOrEqual(LIMITS.addressFailures);
    }
    expect(await admin().zcard(`${prefix}l:a:10.0.0.1`)).toBe(10);
    expect(await admin().zcard(`${prefix}l:p:ctx%2Fd:10.0.0.1`)).toBe(3);
  });
});

it('RedisLockoutStore answers ServiceUnavailable when Redis cannot be reached', async () => {
  const down = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
  down.on('error', () => {});
  const store = new RedisLockoutStore({ redis: down, prefix: 'svc-test:down:', limits: () => LIMITS, now: Date.now });
  await expect(store.retryAfter('10.0.0.1')).rejects.toBeInstanceOf(ServiceUnavailable);
  await expect(store.isLocked('ctx/a', '10.0.0.1')).rejects.toBeInstanceOf(ServiceUnavailable);
  await expect(store.recordFailure('ctx/a', '10.0.0.1')).rejects.toBeInstanceOf(ServiceUnavailable);
  await expect(store.lift('ctx/a')).rejects.toBeInstanceOf(ServiceUnavailable);
  // disconnect() on an ended connection would open a new one.
  if (down.status !== 'end') down.disconnect();
});

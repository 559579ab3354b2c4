/**
 * The LockoutStore behaviour, run against each variant: memory, and Redis (a real one at
 * SVC_TEST_REDIS_URL, default redis://127.0.0.1:6379; skipped with a message when absent, unless
 * SVC_TEST_REQUIRE_ALL=1). Every Redis run uses its own key prefix and deletes its keys afterwards.
 * Time is the injected clock: nothing waits.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { ServiceUnavailable } from '../../common/src/errors';
import type { LockoutLimits, LockoutStore, Reservation } from '../../server/src/login/lockout-store';
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

/** One attempt that was not throttled. */
async function attempt(store: LockoutStore, subjects: string[], peer: string): Promise<Reservation> {
  const reservation = await store.reserve(subjects, peer);
  if (reservation.throttled) throw new Error(`${peer} is throttled`);
  return reservation;
}

/** `times` failed attempts one after the other; resolves the kinds of the locks they started. */
async function fail(store: LockoutStore, subject: string | undefined, peer: string, times: number): Promise<string[]> {
  const started: string[] = [];
  for (let i = 0; i < times; i++) started.push(...(await attempt(store, subject === undefined ? [] : [subject], peer)).started.map((lock) => lock.kind));
  return started;
}

/** Whether an attempt now would be refused as locked (the probe itself counts, like any attempt). */
const locked = async (store: LockoutStore, subject: string, peer: string) => (await attempt(store, [subject], peer)).locked;

function lockoutBehaviour(make: Make): void {
  let clock: Clock;
  let store: LockoutStore;
  beforeEach(() => {
    clock = { at: Date.UTC(2026, 0, 1) };
    store = make(clock);
  });

  it('the 5th attempt of a pair is still verified and starts the lock; the next are locked for the duration, not other addresses', async () => {
    expect(await fail(store, 'ctx/a', '10.0.0.1', 4)).toEqual([]);
    const fifth = await attempt(store, ['ctx/a'], '10.0.0.1');
    expect(fifth.locked).toBe(false);
    expect(fifth.started).toEqual([{ kind: 'pair', subject: 'ctx/a' }]);
    expect(await locked(store, 'ctx/a', '10.0.0.1')).toBe(true);
    expect(await locked(store, 'ctx/a', '10.0.0.2')).toBe(false);
    expect(await locked(store, 'ctx/b', '10.0.0.1')).toBe(false);
    clock.at += 15 * MINUTE - 1;
    expect(await locked(store, 'ctx/a', '10.0.0.1')).toBe(true);
    clock.at += 1;
    expect(await locked(store, 'ctx/a', '10.0.0.1')).toBe(false);
    expect(await store.counts('ctx/a', '10.0.0.1')).toEqual({ address: 2, pair: 2, subject: 2 });
  });

  it('attempts older than the window do not count; a success clears the pair count', async () => {
    await fail(store, 'ctx/a', '10.0.0.1', 4);
    clock.at += 15 * MINUTE;
    expect(await fail(store, 'ctx/a', '10.0.0.1', 4)).toEqual([]);
    await store.release(await attempt(store, ['ctx/a'], '10.0.0.1'), 'ctx/a');
    expect(await store.counts('ctx/a', '10.0.0.1')).toEqual({ address: 4, pair: 0, subject: 4 });
    expect(await fail(store, 'ctx/a', '10.0.0.1', 4)).toEqual([]);
    expect(await locked(store, 'ctx/a', '10.0.0.1')).toBe(false);
  });

  it('50 attempts from all addresses lock the subject; lifting clears subject and pair locks', async () => {
    expect(await fail(store, 'ctx/a', '10.1.0.1', 5)).toEqual(['pair']);
    for (let i = 0; i < 44; i++) expect(await fail(store, 'ctx/a', `10.2.0.${i}`, 1)).toEqual([]);
    expect(await fail(store, 'ctx/a', '10.3.0.1', 1)).toEqual(['subject']);
    expect(await locked(store, 'ctx/a', '10.9.9.9')).toBe(true);
    expect(await locked(store, 'ctx/b', '10.9.9.9')).toBe(false);
    await store.lift('ctx/a');
    expect(await store.counts('ctx/a', '10.1.0.1')).toEqual({ address: 5, pair: 0, subject: 0 });
    expect(await locked(store, 'ctx/a', '10.9.9.9')).toBe(false);
    expect(await locked(store, 'ctx/a', '10.1.0.1')).toBe(false);
    expect(await fail(store, 'ctx/a', '10.1.0.1', 3)).toEqual([]);
  });

  it('100 attempts from one address throttle it, counting nothing more, until the oldest leaves the window', async () => {
    await fail(store, undefined, '10.5.0.1', 99);
    clock.at += 5 * MINUTE;
    await attempt(store, ['ctx/x'], '10.5.0.1');
    expect(await store.reserve(['ctx/x'], '10.5.0.1')).toEqual({ throttled: true, retryAfter: 600 });
    expect(await store.reserve([], '10.5.0.1')).toEqual({ throttled: true, retryAfter: 600 });
    expect(await store.counts('ctx/x', '10.5.0.1')).toEqual({ address: 100, pair: 1, subject: 1 });
    expect((await store.reserve([], '10.5.0.2')).throttled).toBe(false);
    clock.at += 10 * MINUTE;
    expect((await store.reserve(['ctx/x'], '10.5.0.1')).throttled).toBe(false);
  });

  it('concurrent attempts: exactly the limit pass, the rest are locked, one lock starts, and every one counts', async () => {
    const all = await Promise.all([...Array(12)].map(() => attempt(store, ['ctx/c'], '10.0.0.1')));
    expect(all.filter((r) => !r.locked)).toHaveLength(5);
    expect(all.flatMap((r) => r.started)).toEqual([{ kind: 'pair', subject: 'ctx/c' }]);
    expect(await store.counts('ctx/c', '10.0.0.1')).toEqual({ address: 12, pair: 12, subject: 12 });
  });

  it('a success gives its place back: the lock it started is lifted, the attempts refused meanwhile still count', async () => {
    for (let i = 0; i < 49; i++) await attempt(store, ['ctx/d'], `10.6.0.${i}`);
    const fiftieth = await attempt(store, ['ctx/d'], '10.6.1.1');
    expect(fiftieth).toMatchObject({ locked: false, started: [{ kind: 'subject', subject: 'ctx/d' }] });
    expect(await locked(store, 'ctx/d', '10.6.1.2')).toBe(true);
    await store.release(fiftieth, 'ctx/d');
    expect(await store.counts('ctx/d', '10.6.1.1')).toEqual({ address: 0, pair: 0, subject: 50 });
    // The refused attempt still counts, so the next one reaches the limit again: verified, and locking.
    const next = await attempt(store, ['ctx/d'], '10.6.1.3');
    expect(next).toMatchObject({ locked: false, started: [{ kind: 'subject', subject: 'ctx/d' }] });
    expect(await locked(store, 'ctx/d', '10.6.1.4')).toBe(true);
  });

  it('a name that resolves to several subjects counts against each, is locked when one is, and a success clears only its own pair', async () => {
    await fail(store, 'ctx/e', '10.7.0.1', 5);
    const both = await attempt(store, ['ctx/e', 'other/e'], '10.7.0.1');
    expect(both.locked).toBe(true);
    expect(await store.counts('other/e', '10.7.0.1')).toEqual({ address: 6, pair: 1, subject: 1 });
    await fail(store, 'other/e', '10.7.0.2', 2);
    const success = await attempt(store, ['ctx/e', 'other/e'], '10.7.0.2');
    expect(success.locked).toBe(false);
    await store.release(success, 'ctx/e');
    expect(await store.counts('ctx/e', '10.7.0.2')).toEqual({ address: 2, pair: 0, subject: 6 });
    expect(await store.counts('other/e', '10.7.0.2')).toEqual({ address: 2, pair: 2, subject: 3 });
  });

  it('statuses: a pair or subject lock that holds, its end, and the subject’s failures, for many subjects in one call', async () => {
    const start = clock.at;
    await fail(store, 'ctx/a', '10.0.0.1', 5);
    clock.at += MINUTE;
    await fail(store, 'ctx/b', '10.0.0.2', 2);
    const answer = await store.statuses(['ctx/a', 'ctx/b', 'ctx/none']);
    expect([...answer.keys()]).toEqual(['ctx/a', 'ctx/b', 'ctx/none']);
    expect(answer.get('ctx/a')).toEqual({ locked: true, lockedUntil: start + 15 * MINUTE, failures: 5 });
    expect(answer.get('ctx/b')).toEqual({ locked: false, lockedUntil: null, failures: 2 });
    expect(answer.get('ctx/none')).toEqual({ locked: false, lockedUntil: null, failures: 0 });
    // A later pair lock of the same subject ends later: the latest end is shown.
    await fail(store, 'ctx/a', '10.0.0.3', 5);
    expect((await store.statuses(['ctx/a'])).get('ctx/a')).toEqual({ locked: true, lockedUntil: clock.at + 15 * MINUTE, failures: 10 });
    clock.at = start + 15 * MINUTE;
    expect((await store.statuses(['ctx/a'])).get('ctx/a')).toMatchObject({ locked: true, lockedUntil: start + 16 * MINUTE });
    clock.at = start + 16 * MINUTE;
    expect((await store.statuses(['ctx/a'])).get('ctx/a')).toEqual({ locked: false, lockedUntil: null, failures: 0 });
    await fail(store, 'ctx/b', '10.0.0.2', 3);
    await store.lift('ctx/b');
    expect((await store.statuses(['ctx/b'])).get('ctx/b')).toEqual({ locked: false, lockedUntil: null, failures: 0 });
    expect((await store.statuses([])).size).toBe(0);
  });

  it('a success without a subject (anonymous, a token) leaves the address count as it was', async () => {
    await fail(store, undefined, '10.8.0.1', 2);
    await store.release(await attempt(store, [], '10.8.0.1'));
    expect(await store.counts('ctx/f', '10.8.0.1')).toEqual({ address: 2, pair: 0, subject: 0 });
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

  it('counts exactly across connections: concurrent attempts pass the limit only as many as it allows', async () => {
    const clock = { at: Date.UTC(2026, 0, 1) };
    const prefix = `${runPrefix}shared:`;
    const other = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      const a = make(clock, prefix);
      const b = new RedisLockoutStore({ redis: other, prefix, limits: () => LIMITS, now: () => clock.at });
      const all = await Promise.all([...Array(12).keys()].map((i) => attempt(i % 2 ? a : b, ['ctx/c'], '10.0.0.1')));
      expect(all.filter((r) => !r.locked)).toHaveLength(5);
      expect(all.flatMap((r) => r.started)).toEqual([{ kind: 'pair', subject: 'ctx/c' }]);
      expect(await b.counts('ctx/c', '10.0.0.1')).toEqual({ address: 12, pair: 12, subject: 12 });
    } finally {
      await other.quit();
    }
  });

  it('statuses of a page of subjects is one command to Redis, whatever their number', async () => {
    const clock = { at: Date.UTC(2026, 0, 1) };
    const store = make(clock);
    const page = Array.from({ length: 25 }, (_, i) => `ctx/p${i}`);
    await fail(store, 'ctx/p3', '10.0.0.1', 5);
    await store.statuses(page); // loads the script
    const sent = jest.spyOn(admin(), 'sendCommand');
    try {
      const answer = await store.statuses(page);
      expect(sent).toHaveBeenCalledTimes(1);
      expect(page.filter((s) => answer.get(s)!.locked)).toEqual(['ctx/p3']);
    } finally {
      sent.mockRestore();
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
  await expect(store.reserve(['ctx/a'], '10.0.0.1')).rejects.toBeInstanceOf(ServiceUnavailable);
  await expect(store.reserve([], '10.0.0.1')).rejects.toBeInstanceOf(ServiceUnavailable);
  const reservation = { throttled: false as const, id: '1', subjects: ['ctx/a'], peer: '10.0.0.1', locked: false, started: [] };
  await expect(store.release(reservation, 'ctx/a')).rejects.toBeInstanceOf(ServiceUnavailable);
  await expect(store.counts('ctx/a', '10.0.0.1')).rejects.toBeInstanceOf(ServiceUnavailable);
  await expect(store.lift('ctx/a')).rejects.toBeInstanceOf(ServiceUnavailable);
  await expect(store.statuses(['ctx/a'])).rejects.toBeInstanceOf(ServiceUnavailable);
  // disconnect() on an ended connection would open a new one.
  if (down.status !== 'end') down.disconnect();
});

/**
 * The attempt limiter and reset markers (flows/attempt-limiter.ts, reset-markers.ts), run against each
 * variant: memory, and Redis (a real one at SVC_TEST_REDIS_URL, default redis://127.0.0.1:6379; skipped
 * with a message when absent, unless SVC_TEST_REQUIRE_ALL=1; every run under its own key prefix, deleted
 * after). Time is the injected clock: slots taken before verification, refusals that do not prolong
 * themselves, single-use markers; bounded keys (memory: by count; Redis: by TTL and size).
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { ServiceUnavailable, TooManyRequests } from '../../common/src/errors';
import { takeSlot, type AttemptLimiter } from '../../server/src/flows/attempt-limiter';
import { MemoryAttemptLimiter } from '../../server/src/flows/memory-attempt-limiter';
import { MemoryResetMarkers } from '../../server/src/flows/memory-reset-markers';
import { RedisAttemptLimiter } from '../../server/src/flows/redis-attempt-limiter';
import { RedisResetMarkers } from '../../server/src/flows/redis-reset-markers';
import type { ResetMarkers } from '../../server/src/flows/reset-markers';
import { suiteRedis } from '../helpers/redis-keys';
import { describeWithService, REDIS_URL, redisRequirement } from '../helpers/services';

class Clock {
  t = Date.UTC(2030, 0, 1);
  readonly now = () => this.t;
}

type MakeLimiter = (clock: Clock, limit?: number, window?: number) => AttemptLimiter;
type MakeMarkers = (clock: Clock) => ResetMarkers;

function limiterBehaviour(make: MakeLimiter): void {
  let clock: Clock;
  beforeEach(() => {
    clock = new Clock();
  });

  test('grants `limit` slots to concurrent takes, and refuses the rest with the time until one frees', async () => {
    const attempts = make(clock);
    const slots = await Promise.all(Array.from({ length: 10 }, () => attempts.take('bob')));
    expect(slots.filter((s) => s.granted)).toHaveLength(3);
    expect(slots.filter((s) => !s.granted)).toEqual(Array(7).fill({ granted: false, retryAfter: 900 }));
    await expect(attempts.attempts('bob')).resolves.toBe(10);
    await expect(attempts.attempts('alice')).resolves.toBe(0);
  });

  test('a refused attempt does not prolong the refusal; the window slides', async () => {
    const attempts = make(clock);
    await attempts.take('bob');
    clock.t += 300_000;
    await attempts.take('bob');
    await attempts.take('bob');
    clock.t += 300_000;
    await expect(attempts.take('bob')).resolves.toEqual({ granted: false, retryAfter: 300 });
    clock.t += 300_000;
    // The first slot left the window: one frees up, whatever was refused meanwhile.
    await expect(attempts.take('bob')).resolves.toMatchObject({ granted: true });
    await expect(attempts.take('bob')).resolves.toEqual({ granted: false, retryAfter: 300 });
    clock.t += 900_000;
    await expect(attempts.attempts('bob')).resolves.toBe(0);
  });

  test('a released slot is free again', async () => {
    const attempts = make(clock, 1);
    const slot = await attempts.take('bob');
    expect((await attempts.take('bob')).granted).toBe(false);
    if (slot.granted) await attempts.release('bob', slot.id);
    expect((await attempts.take('bob')).granted).toBe(true);
  });

  test('takeSlot throws 429 with Retry-After', async () => {
    const attempts = make(clock, 1);
    await takeSlot(attempts, 'peer', 'slow down');
    const refused = await takeSlot(attempts, 'peer', 'slow down').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TooManyRequests);
    expect((refused as TooManyRequests).headers).toEqual({ 'Retry-After': '900' });
  });

  test('keys are apart: one key at its limit leaves others, and odd or long keys, alone', async () => {
    const attempts = make(clock, 1);
    const long = 'x'.repeat(5000);
    for (const key of ['a:b', 'a', long, `${long}y`, 'r:a']) expect((await attempts.take(key)).granted).toBe(true);
    await expect(attempts.attempts('a')).resolves.toBe(1);
  });
}

function markersBehaviour(make: MakeMarkers): void {
  test('a marker opens once, only for its subject, only while it lives; a new one replaces it', async () => {
    const clock = new Clock();
    const markers = make(clock);
    const first = await markers.issue('employees/bob', 60);
    await expect(markers.consume('employees/alice', first)).resolves.toBeUndefined();
    await expect(markers.consume('employees/bob', 'AAAAAAAAAAAAAAAAAAAAAA')).resolves.toBeUndefined();
    const second = await markers.issue('employees/bob', 60);
    await expect(markers.consume('employees/bob', first)).resolves.toBeUndefined();
    await expect(Promise.all([markers.consume('employees/bob', second), markers.consume('employees/bob', second)])).resolves.toEqual([clock.t + 60_000, undefined]);
    const third = await markers.issue('employees/bob', 60);
    clock.t += 60_000;
    await expect(markers.consume('employees/bob', third)).resolves.toBeUndefined();
  });

  test('a consumed marker put back opens once more until its own expiry, never over a newer one', async () => {
    const clock = new Clock();
    const markers = make(clock);
    const first = await markers.issue('employees/bob', 60);
    const expires = await markers.consume('employees/bob', first);
    expect(expires).toBe(clock.t + 60_000);
    clock.t += 30_000;
    await markers.restore('employees/bob', first, expires!);
    await expect(markers.consume('employees/bob', first)).resolves.toBe(expires);
    await markers.restore('employees/bob', first, expires!);
    clock.t += 30_000;
    await expect(markers.consume('employees/bob', first)).resolves.toBeUndefined();

    const second = await markers.issue('employees/bob', 60);
    const secondExpires = await markers.consume('employees/bob', second);
    const third = await markers.issue('employees/bob', 60);
    await markers.restore('employees/bob', second, secondExpires!);
    await expect(markers.consume('employees/bob', second)).resolves.toBeUndefined();
    await expect(markers.consume('employees/bob', third)).resolves.toBe(clock.t + 60_000);
    await markers.restore('employees/bob', third, clock.t);
    await expect(markers.consume('employees/bob', third)).resolves.toBeUndefined();
  });
}

describe('MemoryAttemptLimiter', () => {
  limiterBehaviour((clock, limit = 3, window = 900) => new MemoryAttemptLimiter(() => ({ limit, window }), clock.now));

  test('holds at most maxKeys keys, dropping expired ones first', async () => {
    const clock = new Clock();
    const attempts = new MemoryAttemptLimiter(() => ({ limit: 3, window: 900 }), clock.now, 100);
    await attempts.take('kept');
    clock.t += 1000;
    for (let i = 0; i < 99; i++) await attempts.take(`old${i}`);
    clock.t += 900_000 - 500;
    // "kept" has expired, the others not yet: a new key drops the expired one, not a live one.
    await attempts.take('new');
    await expect(attempts.attempts('kept')).resolves.toBe(0);
    await expect(attempts.attempts('old0')).resolves.toBe(1);
    for (let i = 0; i < 1000; i++) await attempts.take(`flood${i}`);
    const live = await Promise.all(Array.from({ length: 1000 }, (_, i) => attempts.attempts(`flood${i}`)));
    expect(live.filter((n) => n > 0).length).toBeLessThanOrEqual(100);
  });
});

describe('MemoryResetMarkers', () => {
  markersBehaviour((clock) => new MemoryResetMarkers(clock.now));

  test('holds at most maxKeys subjects', async () => {
    const clock = new Clock();
    const markers = new MemoryResetMarkers(clock.now, 10);
    const values = [];
    for (let i = 0; i < 20; i++) values.push(await markers.issue(`s${i}`, 60));
    const opened = await Promise.all(values.map((value, i) => markers.consume(`s${i}`, value)));
    expect(opened.filter(Boolean)).toHaveLength(10);
    expect(opened.slice(10).every(Boolean)).toBe(true);
  });
});

describeWithService(redisRequirement(), 'Redis attempt limiter and reset markers', () => {
  const runPrefix = `svc-test:attempts:${process.pid}:${randomBytes(6).toString('hex')}:`;
  const admin = suiteRedis(runPrefix);
  let made = 0;
  const limiterOn = (redis: Redis, prefix: string, clock: Clock, limit = 3, window = 900) =>
    new RedisAttemptLimiter({ redis, prefix, name: 'answers', limits: () => ({ limit, window }), now: clock.now });

  describe('RedisAttemptLimiter', () => {
    limiterBehaviour((clock, limit, window) => limiterOn(admin(), `${runPrefix}${++made}:`, clock, limit, window));

    test('counts exactly across connections: concurrent takes from two instances pass the limit only as many as it allows', async () => {
      const clock = new Clock();
      const prefix = `${runPrefix}shared:`;
      const other = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      try {
        const a = limiterOn(admin(), prefix, clock, 5);
        const b = limiterOn(other, prefix, clock, 5);
        const slots = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).take('10.0.0.1')));
        expect(slots.filter((s) => s.granted)).toHaveLength(5);
        await expect(a.attempts('10.0.0.1')).resolves.toBe(40);
        await expect(b.attempts('10.0.0.1')).resolves.toBe(40);
        const granted = slots.find((s) => s.granted);
        if (granted?.granted) await b.release('10.0.0.1', granted.id);
        expect((await a.take('10.0.0.1')).granted).toBe(true);
      } finally {
        await other.quit();
      }
    });

    test('limiters of different names share nothing; every key has a TTL, lives under the prefix and is bounded', async () => {
      const clock = new Clock();
      const prefix = `${runPrefix}bounded:`;
      const answers = limiterOn(admin(), prefix, clock, 3);
      const starts = new RedisAttemptLimiter({ redis: admin(), prefix, name: 'starts', limits: () => ({ limit: 3, window: 900 }), now: clock.now });
      for (let i = 0; i < 10; i++) await answers.take('employees/bob');
      expect((await starts.take('employees/bob')).granted).toBe(true);
      const keys = await admin().keys(`${prefix}*`);
      expect(keys.sort()).toEqual([`${prefix}t:answers:employees%2Fbob`, `${prefix}t:answers:r:employees%2Fbob`, `${prefix}t:starts:employees%2Fbob`]);
      for (const key of keys) expect(await admin().pttl(key)).toBeGreaterThan(0);
      expect(await admin().zcard(`${prefix}t:answers:employees%2Fbob`)).toBe(3);
    });
  });

  describe('RedisResetMarkers', () => {
    markersBehaviour((clock) => new RedisResetMarkers(admin(), `${runPrefix}${++made}:`, clock.now));

    test('a marker issued through one connection is consumed once across two; Redis holds only its hash, with a TTL', async () => {
      const clock = new Clock();
      const prefix = `${runPrefix}markers:`;
      const other = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      try {
        const a = new RedisResetMarkers(admin(), prefix, clock.now);
        const b = new RedisResetMarkers(other, prefix, clock.now);
        const value = await a.issue('employees/bob', 600);
        const stored = await admin().get(`${prefix}m:employees%2Fbob`);
        expect(stored).not.toContain(value);
        expect(await admin().pttl(`${prefix}m:employees%2Fbob`)).toBeGreaterThan(0);
        const opened = await Promise.all([a.consume('employees/bob', value), b.consume('employees/bob', value), b.consume('employees/bob', value)]);
        expect(opened.filter(Boolean)).toHaveLength(1);
      } finally {
        await other.quit();
      }
    });
  });
});

test('the Redis limiter and markers fail closed with ServiceUnavailable when Redis cannot be reached', async () => {
  const down = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
  down.on('error', () => {});
  const clock = new Clock();
  const limiter = new RedisAttemptLimiter({ redis: down, prefix: 'svc-test:down:', name: 'answers', limits: () => ({ limit: 3, window: 900 }), now: clock.now });
  const markers = new RedisResetMarkers(down, 'svc-test:down:', clock.now);
  await expect(limiter.take('bob')).rejects.toBeInstanceOf(ServiceUnavailable);
  await expect(limiter.release('bob', '1')).rejects.toBeInstanceOf(ServiceUnavailable);
  await expect(limiter.attempts('bob')).rejects.toBeInstanceOf(ServiceUnavailable);
  await expect(markers.issue('bob', 60)).rejects.toBeInstanceOf(ServiceUnavailable);
  await expect(markers.consume('bob', 'x')).rejects.toBeInstanceOf(ServiceUnavailable);
  if (down.status !== 'end') down.disconnect();
});

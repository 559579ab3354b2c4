/**
 * The in-memory attempt limiter and reset markers (flows/attempt-limiter.ts, reset-markers.ts), on a
 * fake clock: slots taken before verification, refusals that do not prolong themselves, bounded keys,
 * single-use markers.
 */
import { TooManyRequests } from '../../common/src/errors';
import { takeSlot } from '../../server/src/flows/attempt-limiter';
import { MemoryAttemptLimiter } from '../../server/src/flows/memory-attempt-limiter';
import { MemoryResetMarkers } from '../../server/src/flows/memory-reset-markers';

class Clock {
  t = Date.UTC(2030, 0, 1);
  readonly now = () => this.t;
}

let clock: Clock;
beforeEach(() => {
  clock = new Clock();
});

describe('MemoryAttemptLimiter', () => {
  const limiter = (limit = 3, window = 900, maxKeys?: number) => new MemoryAttemptLimiter(() => ({ limit, window }), clock.now, maxKeys);

  test('grants `limit` slots in one turn of the event loop, and refuses the rest with the time until one frees', async () => {
    const attempts = limiter();
    const slots = await Promise.all(Array.from({ length: 10 }, () => attempts.take('bob')));
    expect(slots.filter((s) => s.granted)).toHaveLength(3);
    expect(slots.filter((s) => !s.granted)).toEqual(Array(7).fill({ granted: false, retryAfter: 900 }));
    await expect(attempts.attempts('bob')).resolves.toBe(10);
    await expect(attempts.attempts('alice')).resolves.toBe(0);
  });

  test('a refused attempt does not prolong the refusal; the window slides', async () => {
    const attempts = limiter();
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
    const attempts = limiter(1);
    const slot = await attempts.take('bob');
    expect((await attempts.take('bob')).granted).toBe(false);
    if (slot.granted) await attempts.release('bob', slot.id);
    expect((await attempts.take('bob')).granted).toBe(true);
  });

  test('takeSlot throws 429 with Retry-After', async () => {
    const attempts = limiter(1);
    await takeSlot(attempts, 'peer', 'slow down');
    const refused = await takeSlot(attempts, 'peer', 'slow down').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TooManyRequests);
    expect((refused as TooManyRequests).headers).toEqual({ 'Retry-After': '900' });
  });

  test('holds at most maxKeys keys, dropping expired ones first', async () => {
    const attempts = limiter(3, 900, 100);
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
  test('a marker opens once, only for its subject, only while it lives; a new one replaces it', async () => {
    const markers = new MemoryResetMarkers(clock.now);
    const first = await markers.issue('employees/bob', 60);
    await expect(markers.consume('employees/alice', first)).resolves.toBe(false);
    await expect(markers.consume('employees/bob', 'AAAAAAAAAAAAAAAAAAAAAA')).resolves.toBe(false);
    const second = await markers.issue('employees/bob', 60);
    await expect(markers.consume('employees/bob', first)).resolves.toBe(false);
    await expect(Promise.all([markers.consume('employees/bob', second), markers.consume('employees/bob', second)])).resolves.toEqual([true, false]);
    const third = await markers.issue('employees/bob', 60);
    clock.t += 60_000;
    await expect(markers.consume('employees/bob', third)).resolves.toBe(false);
  });

  test('holds at most maxKeys subjects', async () => {
    const markers = new MemoryResetMarkers(clock.now, 10);
    const values = [];
    for (let i = 0; i < 20; i++) values.push(await markers.issue(`s${i}`, 60));
    const opened = await Promise.all(values.map((value, i) => markers.consume(`s${i}`, value)));
    expect(opened.filter(Boolean)).toHaveLength(10);
    expect(opened.slice(10).every(Boolean)).toBe(true);
  });
});

/**
 * The behaviour every SessionStore must have, run against each variant (memory, Redis).
 */
import { ServiceUnavailable } from '../../common/src/errors';
import type { NonceStore } from '../../common/src/nonce-store';
import type { SessionStore } from '../../server/src/sessions/session-store';
import { FakeClock, key, record, type StoreBounds, type StoreHarness } from './helpers';

export function storeBehaviour(harness: StoreHarness): void {
  let clock: FakeClock;
  const open: SessionStore[] = [];
  const make = (bounds?: StoreBounds): SessionStore => {
    const store = harness.make(clock, bounds);
    open.push(store);
    return store;
  };

  beforeEach(() => {
    clock = new FakeClock();
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  it('is a NonceStore', () => {
    const store = make();
    const nonces: NonceStore = store;
    expect(typeof nonces.rememberOnce).toBe('function');
  });

  it('stores and returns a record, and nothing under an unknown key', async () => {
    const store = make();
    const r = record({ message: 'hello', data: { step: 2, answers: ['a'] } });
    await store.put(key(1), r, 600);
    await expect(store.get(key(1))).resolves.toEqual(r);
    await expect(store.get(key(2))).resolves.toBeUndefined();
    await expect(store.size()).resolves.toBe(1);
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('stores a record without principal or optional fields', async () => {
    const store = make();
    const r = record({ type: 'ANON', level: 0, data: { flow: 'forgot' } }, null);
    await store.put(key(1), r, 600);
    await expect(store.get(key(1))).resolves.toEqual(r);
  });

  it('copies records in and out', async () => {
    const store = make();
    const r = record({ data: { step: 1 } });
    await store.put(key(1), r, 600);
    r.data!.step = 99;
    r.principal!.uniqueId = 'mallory';
    const got = (await store.get(key(1)))!;
    expect(got.data).toEqual({ step: 1 });
    expect(got.principal).toEqual({ uniqueId: 'jdoe', contextId: 'people' });
    got.lastAccess = 5;
    expect((await store.get(key(1)))!.lastAccess).toBe(1_000);
  });

  it('replaces a record put twice under one key', async () => {
    const store = make();
    await store.put(key(1), record({ lastAccess: 1 }), 600);
    const second = record({ lastAccess: 2 });
    await store.put(key(1), second, 600);
    await expect(store.get(key(1))).resolves.toEqual(second);
    await expect(store.size()).resolves.toBe(1);
  });

  it('update writes only over a live record', async () => {
    const store = make();
    await expect(store.update(key(1), record(), 600)).resolves.toBe(false);
    await expect(store.get(key(1))).resolves.toBeUndefined();
    await expect(store.size()).resolves.toBe(0);
    const r = record();
    await store.put(key(1), r, 600);
    await expect(store.update(key(1), { ...r, lastAccess: 7_000 }, 600)).resolves.toBe(true);
    expect((await store.get(key(1)))!.lastAccess).toBe(7_000);
    await store.delete(key(1));
    await expect(store.update(key(1), r, 600)).resolves.toBe(false);
    await expect(store.get(key(1))).resolves.toBeUndefined();
  });

  it('deletes', async () => {
    const store = make();
    await store.put(key(1), record(), 600);
    await expect(store.delete(key(1))).resolves.toBe(true);
    await expect(store.delete(key(1))).resolves.toBe(false);
    await expect(store.get(key(1))).resolves.toBeUndefined();
    await expect(store.size()).resolves.toBe(0);
    await expect(store.deleteByPrincipal('people', 'jdoe')).resolves.toBe(0);
  });

  it('deletes by principal, keeping the excepted key and other principals', async () => {
    const store = make();
    const jdoe = { uniqueId: 'jdoe', contextId: 'people' };
    for (const n of [1, 2, 3]) await store.put(key(n), record({}, jdoe), 600);
    await store.put(key(4), record({}, { uniqueId: 'jdoe', contextId: 'staff' }), 600);
    await store.put(key(5), record({}, { uniqueId: 'other', contextId: 'people' }), 600);
    await store.put(key(6), record({ type: 'ANON', level: 0, data: {} }, null), 600);

    await expect(store.deleteByPrincipal('people', 'jdoe', key(2))).resolves.toBe(2);
    await expect(store.get(key(1))).resolves.toBeUndefined();
    await expect(store.get(key(3))).resolves.toBeUndefined();
    for (const n of [2, 4, 5, 6]) await expect(store.get(key(n))).resolves.toBeDefined();
    await expect(store.size()).resolves.toBe(4);

    await expect(store.deleteByPrincipal('people', 'jdoe')).resolves.toBe(1);
    await expect(store.get(key(2))).resolves.toBeUndefined();
    await expect(store.deleteByPrincipal('people', 'jdoe')).resolves.toBe(0);
    await expect(store.deleteByPrincipal('nobody', 'here')).resolves.toBe(0);
  });

  it('a principal at maxPerPrincipal: a new session ends its oldest (by created), not another principal\'s (SPEC 4)', async () => {
    const store = make();
    const jdoe = { uniqueId: 'jdoe', contextId: 'people' };
    // Put out of creation order: the oldest is the one created first, not the one stored first.
    await store.put(key(1), record({ created: 3_000 }, jdoe), 600, 3);
    await store.put(key(2), record({ created: 1_000 }, jdoe), 600, 3);
    await store.put(key(3), record({ created: 2_000 }, jdoe), 600, 3);
    await store.put(key(9), record({ created: 500 }, { uniqueId: 'other', contextId: 'people' }), 600, 3);
    await store.put(key(4), record({ created: 4_000 }, jdoe), 600, 3);
    await expect(store.get(key(2))).resolves.toBeUndefined();
    for (const n of [1, 3, 4, 9]) await expect(store.get(key(n))).resolves.toBeDefined();
    // A replaced record is not new: nothing more ends. Without the bound, nothing ends at all.
    await store.put(key(4), record({ created: 4_000 }, jdoe), 600, 3);
    await store.put(key(5), record({ created: 5_000 }, jdoe), 600);
    for (const n of [1, 3, 4, 5]) await expect(store.get(key(n))).resolves.toBeDefined();
    await store.put(key(6), record({ created: 6_000 }, jdoe), 600, 2);
    for (const n of [1, 3, 4]) await expect(store.get(key(n))).resolves.toBeUndefined();
    for (const n of [5, 6, 9]) await expect(store.get(key(n))).resolves.toBeDefined();
    await expect(store.size()).resolves.toBe(3);
    await expect(store.deleteByPrincipal('people', 'jdoe')).resolves.toBe(2);
  });

  it('revokes what deleteByPrincipal ends when asked, for as long as asked, and nothing else', async () => {
    const store = make();
    const jdoe = { uniqueId: 'jdoe', contextId: 'people' };
    for (const n of [1, 2, 3]) await store.put(key(n), record({ created: n * 1_000 }, jdoe), 600);
    const asked: number[] = [];
    await expect(store.deleteByPrincipal('people', 'jdoe', key(2), (r) => (asked.push(r.created), 60_000))).resolves.toBe(2);
    expect(asked.sort()).toEqual([1_000, 3_000]);
    await expect(store.isRevoked(key(1))).resolves.toBe(true);
    await expect(store.isRevoked(key(3))).resolves.toBe(true);
    await expect(store.isRevoked(key(2))).resolves.toBe(false);
    await expect(store.get(key(2))).resolves.toBeDefined();
    await expect(store.isRevoked(key(7))).resolves.toBe(false);
    // Without revokeFor, an end is only an end.
    await expect(store.deleteByPrincipal('people', 'jdoe')).resolves.toBe(1);
    await expect(store.isRevoked(key(2))).resolves.toBe(false);
  });

  it('keeps principals whose ids contain separators apart', async () => {
    const store = make();
    await store.put(key(1), record({}, { contextId: 'a:b', uniqueId: 'c' }), 600);
    await store.put(key(2), record({}, { contextId: 'a', uniqueId: 'b:c' }), 600);
    await store.put(key(3), record({}, { contextId: '1:a', uniqueId: 'b' }), 600);
    await expect(store.deleteByPrincipal('a', 'b:c')).resolves.toBe(1);
    await expect(store.get(key(1))).resolves.toBeDefined();
    await expect(store.get(key(3))).resolves.toBeDefined();
  });

  it('deletes by handle', async () => {
    const store = make();
    const r = record();
    await store.put(key(1), r, 600);
    await store.put(key(2), record(), 600);
    await expect(store.deleteByHandle(r.handle)).resolves.toBe(true);
    await expect(store.deleteByHandle(r.handle)).resolves.toBe(false);
    await expect(store.get(key(1))).resolves.toBeUndefined();
    await expect(store.get(key(2))).resolves.toBeDefined();
    await expect(store.deleteByPrincipal('people', 'jdoe')).resolves.toBe(1);
  });

  it('lists at most `limit` records', async () => {
    const store = make();
    const handles = new Set<string>();
    for (let n = 0; n < 5; n++) {
      const r = record();
      handles.add(r.handle);
      await store.put(key(n), r, 600);
    }
    const all = await store.list(100);
    expect(new Set(all.map((r) => r.handle))).toEqual(handles);
    await expect(store.list(3)).resolves.toHaveLength(3);
    await expect(store.list(0)).resolves.toEqual([]);
    await expect(store.list(-1)).rejects.toThrow(TypeError);
  });

  it('refuses a new session when full, and keeps every live one', async () => {
    const store = make({ maxSessions: 3 });
    for (const n of [1, 2, 3]) await store.put(key(n), record(), 600);
    const refusal = await store.put(key(4), record(), 600).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ServiceUnavailable);
    expect((refusal as ServiceUnavailable).status).toBe(503);
    expect(Number((refusal as ServiceUnavailable).headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    for (const n of [1, 2, 3]) await expect(store.get(key(n))).resolves.toBeDefined();
    await expect(store.get(key(4))).resolves.toBeUndefined();
    await expect(store.size()).resolves.toBe(3);

    // A live session may still be rewritten while full; a freed place can be taken.
    await store.put(key(2), record({ lastAccess: 9 }), 600);
    await expect(store.update(key(3), record({ lastAccess: 9 }), 600)).resolves.toBe(true);
    await store.delete(key(1));
    await store.put(key(4), record(), 600);
    await expect(store.put(key(5), record(), 600)).rejects.toBeInstanceOf(ServiceUnavailable);
  });

  it('rejects invalid TTLs', async () => {
    const store = make();
    await expect(store.put(key(1), record(), 0)).rejects.toThrow(TypeError);
    await expect(store.put(key(1), record(), Number.NaN)).rejects.toThrow(TypeError);
    await expect(store.rememberOnce('n', -1)).rejects.toThrow(TypeError);
    await expect(store.rememberOnce('', 10)).rejects.toThrow(TypeError);
  });

  it('rememberOnce: true the first time, false on a replay', async () => {
    const store = make();
    await expect(store.rememberOnce('clientcred|web|AAAA', 900)).resolves.toBe(true);
    await expect(store.rememberOnce('clientcred|web|AAAA', 900)).resolves.toBe(false);
    await expect(store.rememberOnce('clientcred|web|AAAA', 900)).resolves.toBe(false);
    await expect(store.rememberOnce('clientcred|web|BBBB', 900)).resolves.toBe(true);
    await expect(store.rememberOnce('assertion|portal|AAAA', 180)).resolves.toBe(true);
    // Nonces are not sessions.
    await expect(store.size()).resolves.toBe(0);
    await expect(store.get('clientcred|web|AAAA')).resolves.toBeUndefined();
  });

  it('rememberOnce refuses when the nonce area is full and forgets nothing unexpired', async () => {
    const store = make({ maxNonces: 3 });
    for (const n of ['a', 'b', 'c']) await expect(store.rememberOnce(n, 900)).resolves.toBe(true);
    const refusal = await store.rememberOnce('d', 900).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ServiceUnavailable);
    expect(Number((refusal as ServiceUnavailable).headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    // Replays are still recognised as replays while full.
    for (const n of ['a', 'b', 'c']) await expect(store.rememberOnce(n, 900)).resolves.toBe(false);
    await expect(store.rememberOnce('d', 900)).rejects.toBeInstanceOf(ServiceUnavailable);
    // Sessions have their own bound.
    await store.put(key(1), record(), 600);
  });

  if (harness.storeFollowsClock) {
    it('expires sessions after their TTL', async () => {
      const store = make();
      await store.put(key(1), record(), 60);
      await store.put(key(2), record(), 120);
      clock.advance(59_999);
      await expect(store.get(key(1))).resolves.toBeDefined();
      clock.advance(1);
      await expect(store.get(key(1))).resolves.toBeUndefined();
      await expect(store.update(key(1), record(), 60)).resolves.toBe(false);
      await expect(store.delete(key(1))).resolves.toBe(false);
      await expect(store.list(10)).resolves.toHaveLength(1);
      // Expired records are not reported as deleted.
      clock.advance(60_000);
      await expect(store.deleteByPrincipal('people', 'jdoe')).resolves.toBe(0);
    });

    it('forgets a revocation when its time is up', async () => {
      const store = make();
      await store.put(key(1), record(), 600);
      await store.deleteByPrincipal('people', 'jdoe', undefined, () => 120_000);
      clock.advance(119_999);
      await expect(store.isRevoked(key(1))).resolves.toBe(true);
      clock.advance(1);
      await expect(store.isRevoked(key(1))).resolves.toBe(false);
    });

    it('update extends the TTL', async () => {
      const store = make();
      const r = record();
      await store.put(key(1), r, 60);
      clock.advance(50_000);
      await store.update(key(1), r, 60);
      clock.advance(50_000);
      await expect(store.get(key(1))).resolves.toBeDefined();
    });

    it('a full store takes a new session once one has expired', async () => {
      const store = make({ maxSessions: 2 });
      await store.put(key(1), record(), 60);
      await store.put(key(2), record(), 600);
      await expect(store.put(key(3), record(), 600)).rejects.toBeInstanceOf(ServiceUnavailable);
      clock.advance(60_000);
      await store.put(key(3), record(), 600);
      await expect(store.get(key(2))).resolves.toBeDefined();
      await expect(store.get(key(3))).resolves.toBeDefined();
    });

    it('rememberOnce forgets a key after its TTL, and a full nonce area frees expired ones', async () => {
      const store = make({ maxNonces: 2 });
      await expect(store.rememberOnce('a', 10)).resolves.toBe(true);
      await expect(store.rememberOnce('b', 900)).resolves.toBe(true);
      clock.advance(9_999);
      await expect(store.rememberOnce('a', 10)).resolves.toBe(false);
      await expect(store.rememberOnce('c', 900)).rejects.toBeInstanceOf(ServiceUnavailable);
      clock.advance(1);
      await expect(store.rememberOnce('c', 900)).resolves.toBe(true);
      await expect(store.rememberOnce('a', 10)).rejects.toBeInstanceOf(ServiceUnavailable);
      await expect(store.rememberOnce('b', 900)).resolves.toBe(false);
    });
  } else {
    it('gives sessions and nonces the TTL asked for', async () => {
      const ttlOf = harness.remainingTtl!;
      const store = make();
      await store.put(key(1), record(), 60);
      const sessionTtl = await ttlOf(store, 'session', key(1));
      expect(sessionTtl).toBeGreaterThan(50_000);
      expect(sessionTtl).toBeLessThanOrEqual(60_000);
      await store.update(key(1), record(), 600);
      expect(await ttlOf(store, 'session', key(1))).toBeGreaterThan(590_000);
      await store.rememberOnce('n1', 900);
      const nonceTtl = await ttlOf(store, 'nonce', 'n1');
      expect(nonceTtl).toBeGreaterThan(890_000);
      expect(nonceTtl).toBeLessThanOrEqual(900_000);
    });
  }
}

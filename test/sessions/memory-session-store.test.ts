import { MemorySessionStore } from '../../server/src/sessions/memory-session-store';
import { FakeClock, key, record, type StoreHarness } from './helpers';
import { managerBehaviour } from './manager-suite';
import { storeBehaviour } from './store-suite';

const memory: StoreHarness = {
  make: (clock, bounds) => new MemorySessionStore({ now: clock.now, sweepIntervalMs: 0, ...bounds }),
  storeFollowsClock: true,
};

describe('MemorySessionStore', () => {
  storeBehaviour(memory);

  it('refuses invalid bounds', () => {
    expect(() => new MemorySessionStore({ maxSessions: 0 })).toThrow(TypeError);
    expect(() => new MemorySessionStore({ maxNonces: 1.5 })).toThrow(TypeError);
    expect(() => new MemorySessionStore({ sweepIntervalMs: -1 })).toThrow(TypeError);
  });

  it('sweep drops expired sessions, their principal index and expired nonces', async () => {
    const clock = new FakeClock();
    const store = new MemorySessionStore({ now: clock.now, sweepIntervalMs: 0 });
    await store.put(key(1), record(), 60);
    await store.put(key(2), record(), 60);
    await store.put(key(3), record({}, { uniqueId: 'asmith', contextId: 'people' }), 600);
    await store.put(key(4), record({ type: 'ANON', level: 0, data: {} }, null), 60);
    await store.rememberOnce('n1', 60);
    await store.rememberOnce('n2', 600);
    expect(store.stats()).toEqual({ sessions: 4, principals: 2, nonces: 2 });

    clock.advance(60_000);
    store.sweep();
    expect(store.stats()).toEqual({ sessions: 1, principals: 1, nonces: 1 });
    await expect(store.get(key(3))).resolves.toBeDefined();
    await expect(store.rememberOnce('n2', 600)).resolves.toBe(false);
    await expect(store.rememberOnce('n1', 600)).resolves.toBe(true);
    await store.close();
  });

  it('drops an expired session lazily when it is read', async () => {
    const clock = new FakeClock();
    const store = new MemorySessionStore({ now: clock.now, sweepIntervalMs: 0 });
    await store.put(key(1), record(), 60);
    clock.advance(60_000);
    expect(store.stats().sessions).toBe(1);
    await expect(store.get(key(1))).resolves.toBeUndefined();
    expect(store.stats()).toEqual({ sessions: 0, principals: 0, nonces: 0 });
  });

  it('sweeps on its timer', async () => {
    jest.useFakeTimers();
    try {
      const clock = new FakeClock();
      const store = new MemorySessionStore({ now: clock.now, sweepIntervalMs: 1_000 });
      await store.put(key(1), record(), 1);
      await store.rememberOnce('n', 1);
      clock.advance(1_000);
      expect(store.stats()).toEqual({ sessions: 1, principals: 1, nonces: 1 });
      jest.advanceTimersByTime(1_000);
      expect(store.stats()).toEqual({ sessions: 0, principals: 0, nonces: 0 });
      await store.close();
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps the principal index compact: a plain key for one session, a set only from two', async () => {
    const clock = new FakeClock();
    const store = new MemorySessionStore({ now: clock.now, sweepIntervalMs: 0 });
    await store.put(key(1), record(), 600);
    await store.put(key(2), record(), 600);
    await store.put(key(3), record(), 600);
    await store.delete(key(2));
    await store.delete(key(1));
    expect(store.stats().principals).toBe(1);
    await expect(store.deleteByPrincipal('people', 'jdoe')).resolves.toBe(1);
    expect(store.stats().principals).toBe(0);
    // A record whose principal changes under the same key is re-indexed.
    await store.put(key(4), record(), 600);
    await store.put(key(4), record({}, { uniqueId: 'asmith', contextId: 'people' }), 600);
    await expect(store.deleteByPrincipal('people', 'jdoe')).resolves.toBe(0);
    await expect(store.deleteByPrincipal('people', 'asmith')).resolves.toBe(1);
    expect(store.stats()).toEqual({ sessions: 0, principals: 0, nonces: 0 });
  });
});

describe('SessionManager over the memory store', () => {
  managerBehaviour(memory);
});

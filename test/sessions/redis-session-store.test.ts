/**
 * The behavioural suites against a real Redis (default redis://127.0.0.1:6379, or SVC_TEST_REDIS_URL).
 * Every run uses its own key prefix and deletes its keys afterwards. When Redis cannot be reached the
 * suite is skipped with a message, unless SVC_TEST_REQUIRE_ALL=1 (test/helpers/services.ts).
 */
import { randomBytes } from 'node:crypto';
import { ServiceUnavailable } from '../../common/src/errors';
import { RedisSessionStore } from '../../server/src/sessions/redis-session-store';
import type { SessionStore } from '../../server/src/sessions/session-store';
import { describeWithService, redisRequirement } from '../helpers/services';
import { key, record, type StoreHarness } from './helpers';
import { managerBehaviour } from './manager-suite';
import { storeBehaviour } from './store-suite';
import { suiteRedis } from '../helpers/redis-keys';

const redis = redisRequirement();

describeWithService(redis, 'RedisSessionStore', () => {
  const runPrefix = `svc-test:${process.pid}:${randomBytes(6).toString('hex')}:`;
  const admin = suiteRedis(runPrefix);
  let stores = 0;

  /** Every store of a test gets a fresh prefix under the run's, so tests never see each other's keys. */
  const prefixes = new WeakMap<SessionStore, string>();

  const harness: StoreHarness = {
    make: (_clock, bounds) => {
      const prefix = `${runPrefix}${++stores}:`;
      const store = new RedisSessionStore({ redis: admin(), prefix, ...bounds });
      prefixes.set(store, prefix);
      return store;
    },
    storeFollowsClock: false,
    remainingTtl: async (store, kind, k) => admin().pttl(`${prefixes.get(store)}${kind === 'session' ? 's' : 'n'}:${k}`),
  };


  describe('RedisSessionStore', () => {
    storeBehaviour(harness);

    it('keeps its keys under its prefix, and the cookie-derived key only as the record key', async () => {
      const store = harness.make(undefined as never);
      const prefix = prefixes.get(store)!;
      const r = record({ data: { a: 1 } });
      await store.put(key(1), r, 600);
      await store.rememberOnce('clientcred|web|n', 900);
      const keys = (await admin().keys(`${prefix}*`)).map((k) => k.slice(prefix.length)).sort();
      expect(keys).toEqual([`h:${r.handle}`, `n:clientcred|web|n`, 'nonces', 'p:people:jdoe', `s:${key(1)}`, 'sessions'].sort());
      await store.delete(key(1));
      expect((await admin().keys(`${prefix}*`)).map((k) => k.slice(prefix.length)).sort()).toEqual(['n:clientcred|web|n', 'nonces']);
      await store.close();
    });

    it('two instances share sessions, bounds and nonces', async () => {
      const a = harness.make(undefined as never, { maxSessions: 2 });
      const prefix = prefixes.get(a)!;
      const b = new RedisSessionStore({ redis: admin(), prefix, maxSessions: 2 });
      await a.put(key(1), record(), 600);
      await expect(b.get(key(1))).resolves.toBeDefined();
      await b.put(key(2), record(), 600);
      await expect(a.put(key(3), record(), 600)).rejects.toBeInstanceOf(ServiceUnavailable);
      await expect(a.rememberOnce('nonce', 900)).resolves.toBe(true);
      await expect(b.rememberOnce('nonce', 900)).resolves.toBe(false);
      await expect(b.deleteByPrincipal('people', 'jdoe')).resolves.toBe(2);
      await expect(a.size()).resolves.toBe(0);
      await a.close();
      await b.close();
    });

    it('deleteByPrincipal drops index members whose session expired on its own', async () => {
      const store = harness.make(undefined as never);
      const prefix = prefixes.get(store)!;
      await store.put(key(1), record(), 600);
      await admin().del(`${prefix}s:${key(1)}`); // as if its PX had run out
      await expect(store.deleteByPrincipal('people', 'jdoe')).resolves.toBe(0);
      await expect(admin().exists(`${prefix}p:people:jdoe`)).resolves.toBe(0);
      await store.close();
    });

    it('an unreadable record counts as absent', async () => {
      const store = harness.make(undefined as never);
      await admin().set(`${prefixes.get(store)}s:${key(1)}`, 'not json', 'PX', 60_000);
      await expect(store.get(key(1))).resolves.toBeUndefined();
      await store.close();
    });

    it('answers ServiceUnavailable when Redis cannot be reached, and when closed', async () => {
      const down = new RedisSessionStore({
        url: 'redis://127.0.0.1:1',
        redisOptions: { maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 },
      });
      await expect(down.get(key(1))).rejects.toBeInstanceOf(ServiceUnavailable);
      await expect(down.rememberOnce('n', 10)).rejects.toBeInstanceOf(ServiceUnavailable);
      await expect(down.ping()).rejects.toBeInstanceOf(ServiceUnavailable);
      await down.close();
      await expect(down.get(key(1))).rejects.toBeInstanceOf(ServiceUnavailable);
    });
  });

  describe('SessionManager over the Redis store', () => {
    managerBehaviour(harness);
  });
});

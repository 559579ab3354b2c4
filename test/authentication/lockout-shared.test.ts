/**
 * Two real core servers sharing one Redis through the Redis session store share the lockout counters
 * too: failures spread over both lock the pair at the 5th overall, and a lock lifted on one is lifted
 * on the other. A Redis at SVC_TEST_REDIS_URL (default redis://127.0.0.1:6379) is needed; the suite is
 * skipped with a message without it, unless SVC_TEST_REQUIRE_ALL=1. The run's keys are deleted after.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { RedisSessionStore } from '../../server/src/sessions/redis-session-store';
import { startTestServer, TEST_CREDENTIALS, type TestServer, type TestServerOptions } from '../helpers/core-server';
import { send, sessionOf, type Sent } from '../helpers/http';
import { login } from '../helpers/login';
import { describeWithService, REDIS_URL, redisRequirement } from '../helpers/services';
import { deleteKeys } from '../helpers/redis-keys';

const { users } = TEST_CREDENTIALS;
const clock = Date.UTC(2026, 0, 1);

/** Loopback is the trusted proxy, so X-Forwarded-For gives each request the address a test wants. */
const options = (sessionStore: RedisSessionStore): TestServerOptions => ({
  sessionStore,
  now: () => clock,
  configure: (doc) => {
    (doc.server as Record<string, unknown>).trustProxy = ['127.0.0.1/32', '::1/128'];
  },
});

/** One login at `server` from `address`, with the hash computations it caused there. */
async function attempt(server: TestServer, user: string, password: string, address: string): Promise<{ sent: Sent; hashes: number }> {
  const before = server.hasher.stats.started;
  const sent = await login(server.baseUrl, { clientid: 'svc-web', user, password }, { headers: { 'x-forwarded-for': address } });
  return { sent, hashes: server.hasher.stats.started - before };
}

describeWithService(redisRequirement(), 'lockout shared by two core servers over Redis', () => {
  const prefix = `svc-test:shared-lockout:${process.pid}:${randomBytes(6).toString('hex')}:`;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    a = await startTestServer(options(new RedisSessionStore({ url: REDIS_URL, prefix })));
    b = await startTestServer(options(new RedisSessionStore({ url: REDIS_URL, prefix })));
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    await deleteKeys(admin, prefix);
    await admin.quit();
  });

  it('failures spread over both servers lock the pair at the 5th overall, on both, at the same cost', async () => {
    for (const server of [a, b, a, b]) expect((await attempt(server, 'bob', 'wrong-password', '10.7.0.1')).sent.status).toBe(401);
    // Four failures: not locked yet, on either server.
    expect((await attempt(b, 'bob', users.bob, '10.7.0.1')).sent.status).toBe(200);
    for (const server of [a, b, a, b]) await attempt(server, 'bob', 'wrong-password', '10.7.0.1');
    const fifth = await attempt(a, 'bob@example.com', 'wrong-password', '10.7.0.1');
    expect(fifth.sent.status).toBe(401);
    for (const server of [a, b]) {
      const locked = await attempt(server, 'bob', users.bob, '10.7.0.1');
      expect(locked.sent.status).toBe(401);
      expect(locked.sent.json?.code).toBe('login_failed');
      expect(locked.hashes).toBe(fifth.hashes);
    }
    expect((await attempt(b, 'bob', users.bob, '10.7.0.2')).sent.status).toBe(200);
  });

  it('a lock lifted by an administrator on one server is lifted on the other', async () => {
    for (const server of [b, a, b, a, b]) await attempt(server, 'alice', 'wrong-password', '10.8.0.1');
    expect((await attempt(a, 'alice', users.alice, '10.8.0.1')).sent.status).toBe(401);
    expect((await attempt(b, 'alice', users.alice, '10.8.0.1')).sent.status).toBe(401);
    // alice administers employees; from another address her own login works.
    const admin = (await attempt(b, 'alice', users.alice, '10.9.9.9')).sent.cookie;
    const lifted = await send(`${b.baseUrl}/resources/contexts/employees/subjects/alice/lockout`, { method: 'DELETE', cookie: admin, headers: { 'x-forwarded-for': '10.9.9.9' } });
    expect(lifted.status).toBe(204);
    const after = await attempt(a, 'alice', users.alice, '10.8.0.1');
    expect(sessionOf(after.sent)).toMatchObject({ principal: { uniqueId: 'alice' } });
  });
});

describeWithService(redisRequirement(), 'a core whose Redis goes away', () => {
  it('a login fails closed with 503 when the Redis holding the lockout counters cannot be reached', async () => {
    // A core needs Redis to start (it reads the shared cookie key and checks the eviction policy);
    // this connection then goes away for good, as when Redis dies under a running core.
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => {});
    const prefix = `svc-test:lockout-down:${process.pid}:${randomBytes(6).toString('hex')}:`;
    const server = await startTestServer({ sessionStore: new RedisSessionStore({ redis, prefix }) });
    try {
      const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      await deleteKeys(admin, prefix);
      await admin.quit();
      redis.disconnect();
      const before = server.hasher.stats.started;
      const sent = await login(server.baseUrl, { clientid: 'svc-web', user: 'alice', password: users.alice });
      expect(sent.status).toBe(503);
      expect(sent.json?.code).toBe('service_unavailable');
      // Refused at the lockout check, before any authenticator ran (a down session store alone would
      // only refuse after the password was verified).
      expect(server.hasher.stats.started).toBe(before);
    } finally {
      await server.stop();
    }
  });
});

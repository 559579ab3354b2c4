/**
 * The gateways' shared principal → core-session map (SPEC section 12, `gateway.redis`): a portal user
 * logged in through one gateway is served by another without a new core login; a visitor's
 * forgotten-password flow survives requests alternating between gateways; two gateways racing to log
 * one user in converge on one session; a logout through one ends it for both. Redis holds no user
 * name and no cookie in the clear, and every entry expires with the session TTL. Redis gone: 503
 * problems and `/ready` says so, and it serves again once Redis is back. Real core (its sessions in Redis) and gateways; the shared Redis at
 * SVC_TEST_REDIS_URL, and a private redis-server for the outage and the recovery (skipped with a message without them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { MemoryNonceStore } from '../../common/src/memory-nonce-store';
import type { RunningGateway } from '../../gateway/src/index';
import { RedisSessionStore } from '../../server/src/sessions/redis-session-store';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { REDIS_SERVER, startPrivateRedis, type PrivateRedis } from '../helpers/private-redis';
import { deleteKeys } from '../helpers/redis-keys';
import { describeWithService, REDIS_URL, redisRequirement } from '../helpers/services';
import { CarriedVisitor, employee, portalLogin, send, startTestGateway } from './gateway-helpers';

const TTL_SECONDS = 600;
const FORGOT = '/gw/api/contexts/employees/subjects/bob/password/forgot';

interface SessionAnswer {
  session: { uniqueId: string; type: string; principal: { uniqueId: string } | null };
}

/** The gateway's successful client principal logins so far. */
async function principalLogins(gateway: RunningGateway): Promise<number> {
  const metric = await gateway.metrics.coreLogins.get();
  return metric.values.filter((v) => v.labels.kind === 'principal' && v.labels.outcome === 'success').reduce((sum, v) => sum + v.value, 0);
}

const sessionId = async (gateway: RunningGateway, uniqueId: string, visitor = 'v') => {
  const answer = await send(gateway, '/gw/api/session', { user: employee(uniqueId), visitor });
  expect(answer.status).toBe(200);
  return answer.json<SessionAnswer>().session.uniqueId;
};

describeWithService(redisRequirement(), 'gateways sharing core sessions in Redis', () => {
  const prefix = `svc-test:gwsessions:${process.pid}:${randomBytes(6).toString('hex')}:`;
  const gatewayPrefix = `${prefix}gw:`;
  let core: TestServer;
  let a: RunningGateway;
  let b: RunningGateway;
  let admin: Redis;

  beforeAll(async () => {
    core = await startTestServer({ sessionStore: new RedisSessionStore({ url: REDIS_URL, prefix }) });
    const shared = { redis: { url: REDIS_URL, prefix: gatewayPrefix }, sessionTtlSeconds: TTL_SECONDS };
    a = await startTestGateway([core.baseUrl], shared);
    b = await startTestGateway([core.baseUrl], shared);
    admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await core?.stop();
    if (admin) {
      await deleteKeys(admin, prefix);
      await admin.quit();
    }
  });

  test('a user logged in through gateway A is served by gateway B with the same core session, without a new core login', async () => {
    const login = await portalLogin(a, 'bob', TEST_CREDENTIALS.users.bob, { visitor: 'tab-1' });
    expect(login.status).toBe(200);
    const made = login.json<SessionAnswer>().session.uniqueId;
    const before = await principalLogins(b);
    expect(await sessionId(b, 'bob', 'tab-1')).toBe(made);
    expect(await sessionId(a, 'bob', 'tab-1')).toBe(made);
    expect(await principalLogins(b)).toBe(before);
  });

  test("a visitor's forgotten-password flow succeeds with its requests alternating between the gateways", async () => {
    const visitor = new CarriedVisitor(`visitor-${randomBytes(4).toString('hex')}`);
    const put = (gateway: RunningGateway, body: unknown) => visitor.send(gateway, FORGOT, { method: 'PUT', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const questions = await visitor.send(a, FORGOT);
    expect(questions.status).toBe(200);
    expect((await put(b, { answers: TEST_CREDENTIALS.answers.bob })).status).toBe(200);
    expect((await put(a, { password: 'Alternating-bob-7' })).status).toBe(204);
    const login = await portalLogin(b, 'bob', 'Alternating-bob-7', { visitor: visitor.handle });
    expect(login.status).toBe(200);
  });

  test('two gateways racing to log one user in converge on one core session', async () => {
    const user = employee('alice');
    const [first, second] = await Promise.all([a, b].map((gateway) => send(gateway, '/gw/api/session', { user, visitor: 'race' })));
    expect([first.status, second.status]).toEqual([200, 200]);
    const held = await sessionId(a, 'alice', 'race');
    expect(await sessionId(b, 'alice', 'race')).toBe(held);
    expect([first, second].map((answer) => answer.json<SessionAnswer>().session.uniqueId)).toContain(held);
  });

  test('a logout through one gateway ends the session for the other', async () => {
    const held = await sessionId(a, 'alice', 'out');
    expect((await send(b, '/gw/api/logout', { user: employee('alice'), visitor: 'out', method: 'POST' })).status).toBe(204);
    expect(await sessionId(a, 'alice', 'out')).not.toBe(held);
  });

  test('Redis holds neither a name nor a cookie in the clear, and every entry expires within the session TTL', async () => {
    const keys = await admin.keys(`${gatewayPrefix}c:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).not.toMatch(/alice|bob|employees|visitor|demo-portal/);
      const value = (await admin.get(key))!;
      expect(value).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
      expect(value).not.toMatch(/SVCSESSIONID/);
      const ttl = await admin.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(TTL_SECONDS * 1000);
    }
  });

  test('a value moved to another principal\'s key does not open there: that principal gets its own session', async () => {
    const bobId = await sessionId(a, 'bob', 'swap');
    const aliceId = await sessionId(a, 'alice', 'swap');
    const keys = await admin.keys(`${gatewayPrefix}c:*`);
    // Every value onto every key: none opens under a key it was not sealed for.
    const values = await Promise.all(keys.map((key) => admin.get(key)));
    await Promise.all(keys.map((key, i) => admin.set(key, values[(i + 1) % keys.length]!, 'PX', 60_000)));
    const seen = await send(b, '/gw/api/session', { user: employee('alice'), visitor: 'swap' });
    expect(seen.status).toBe(200);
    const session = seen.json<SessionAnswer>().session;
    expect(session.principal?.uniqueId).toBe('alice');
    expect([bobId, aliceId]).not.toContain(session.uniqueId);
  });
});

describeWithService(redisRequirement(), 'a gateway whose Redis goes away', () => {
  let redis: PrivateRedis | undefined;
  let restarted: ChildProcess | undefined;
  let core: TestServer;
  let gateway: RunningGateway;

  beforeAll(async () => {
    redis = await startPrivateRedis(['--maxmemory-policy', 'noeviction']);
    core = await startTestServer();
    // The replay cache in memory: what answers 503 below is the session map alone.
    gateway = await startTestGateway([core.baseUrl], { redis: { url: redis.url, prefix: 'gw:' } }, { nonces: new MemoryNonceStore() });
  });
  afterAll(async () => {
    await gateway?.close();
    await core?.stop();
    await redis?.stop();
    if (restarted && restarted.exitCode === null) {
      const exited = new Promise((resolve) => restarted!.once('exit', resolve));
      restarted.kill('SIGTERM');
      await exited;
    }
  });

  test('answers 503 problems instead of serving without its session map, /ready says redis is down, and it serves again when Redis is back', async () => {
    expect((await send(gateway, '/gw/api/session', { user: employee('bob') })).status).toBe(200);
    const ready = await fetch(`${gateway.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { cores: 'up', redis: 'up' } });

    const redisUrl = redis!.url;
    await redis!.stop();
    redis = undefined;
    const answer = await send(gateway, '/gw/api/session', { user: employee('bob') });
    expect(answer.status).toBe(503);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.json()).toMatchObject({ code: 'service_unavailable' });
    expect(answer.text).not.toMatch(/at .*\.js/);
    // A visitor needs nothing of the gateway's Redis: its state travels with it (SPEC section 9).
    expect((await send(gateway, '/gw/api/session', { user: null })).status).toBe(200);
    const down = await fetch(`${gateway.url}/ready`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'unavailable', checks: { cores: 'up', redis: 'down' } });

    // Redis back on the same port: the gateway serves again without a restart.
    const port = new URL(redisUrl).port;
    restarted = spawn(REDIS_SERVER, ['--port', port, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'], { stdio: 'ignore' });
    while ((await fetch(`${gateway.url}/ready`)).status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await send(gateway, '/gw/api/session', { user: employee('bob') })).status).toBe(200);
  }, 60_000);
});

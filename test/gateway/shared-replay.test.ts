/**
 * Gateways side by side (SPEC section 12): with `gateway.redis`, an assertion accepted by one gateway
 * is refused by every other (SET NX with a 180 s expiry); a replay at the other gateway reaches no core.
 * The configuration treats Redis as a trust root (password and TLS off loopback), and an unreachable
 * Redis refuses nonces with 503 rather than accepting them unchecked. Real core
 * and gateways; the shared Redis at SVC_TEST_REDIS_URL (skipped with a message without it).
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { ServiceUnavailable } from '../../common/src/errors';
import { RedisNonceStore } from '../../common/src/redis/redis-nonce-store';
import { signPrincipalAssertion } from '../../common/src/assertion/principal-assertion';
import { GatewayConfigError } from '../../gateway/src/config';
import type { RunningGateway } from '../../gateway/src/index';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { deleteKeys } from '../helpers/redis-keys';
import { describeWithService, REDIS_URL, redisRequirement } from '../helpers/services';
import { coreRequestsDuring, employee, gatewayConfig, PORTAL, PORTAL_SECRET, send, startTestGateway } from './gateway-helpers';

test('gateway.redis is a trust root in the configuration: a password and rediss:// off loopback, no credentials in the URL', () => {
  const problems = (redis: Record<string, unknown>) => {
    try {
      gatewayConfig(['http://127.0.0.1:1/svc'], { redis } as never);
      return [];
    } catch (error) {
      return (error as GatewayConfigError).problems;
    }
  };
  expect(problems({ url: 'redis://10.0.0.5:6379' })).toEqual([
    'gateway.redis.password: required for a Redis that is not on a loopback address (Redis holds sessions and counters)',
    'gateway.redis.url: a Redis on another host must be reached over TLS (rediss://)',
  ]);
  expect(problems({ url: 'redis://:pw@127.0.0.1:6379' })).toHaveLength(1);
  expect(problems({ url: 'rediss://redis.internal:6380', password: 'x' })).toEqual([]);
});

test('an unreachable Redis refuses a nonce with ServiceUnavailable, never accepts it', async () => {
  const down = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
  down.on('error', () => {});
  await expect(new RedisNonceStore(down, 'svc-test:down:').rememberOnce('assertion|p|n', 180)).rejects.toBeInstanceOf(ServiceUnavailable);
  if (down.status !== 'end') down.disconnect();
});

describeWithService(redisRequirement(), 'two gateways on one Redis', () => {
  const prefix = `svc-test:gw:${process.pid}:${randomBytes(6).toString('hex')}:`;
  let core: TestServer;
  let a: RunningGateway;
  let b: RunningGateway;

  beforeAll(async () => {
    core = await startTestServer();
    a = await startTestGateway([core.baseUrl], { redis: { url: REDIS_URL, prefix } });
    b = await startTestGateway([core.baseUrl], { redis: { url: REDIS_URL, prefix } });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await core?.stop();
    const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    await deleteKeys(admin, prefix);
    await admin.quit();
  });

  test('an assertion accepted by one gateway is refused by the other, and its replay reaches no core', async () => {
    const path = '/gw/api/session';
    const assertion = signPrincipalAssertion({ portalId: PORTAL, secret: PORTAL_SECRET, user: employee('alice'), visitor: 'v', method: 'GET', pathAndQuery: path });
    expect((await send(a, path, { assertion })).status).toBe(200);
    const { result: replay, seen } = await coreRequestsDuring(core, () => send(b, path, { assertion }));
    expect(replay.status).toBe(401);
    expect(replay.json()).toMatchObject({ code: 'invalid_assertion' });
    expect(seen).toEqual([]);
  });

  test('the nonce is held under the prefix with the assertion lifetime of 180 s', async () => {
    const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      const keys = await admin.keys(`${prefix}n:*`);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        const ttl = await admin.pttl(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(180_000);
      }
    } finally {
      await admin.quit();
    }
  });
});

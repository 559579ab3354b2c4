/**
 * `svc gateway --workers 2` with `gateway.redis` (SPEC section 12), the real command as its own
 * process in front of a real core: both workers serve one port with one core session for a portal
 * user (in gateway.redis), an assertion accepted by one worker
 * is refused by both (each refusal is an audit line naming its process), SIGHUP kills no worker (the
 * gateway has nothing to reload), and SIGTERM stops them all.
 * Skipped with a message without Redis, unless SVC_TEST_REQUIRE_ALL=1.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { signPrincipalAssertion } from '../../common/src/assertion/principal-assertion';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { deleteKeys } from '../helpers/redis-keys';
import { describeWithService, REDIS_URL, redisRequirement } from '../helpers/services';
import { alive, startSvc, stopSvc, type Running } from '../helpers/svc-process';
import { eventually, gatewayConfigFile, request, suiteDirs } from './helpers';

jest.setTimeout(120_000);

describeWithService(redisRequirement(), 'svc gateway --workers 2 on Redis', () => {
  const tempDir = suiteDirs();
  const prefix = `svc-test:gw-workers:${process.pid}:${randomBytes(6).toString('hex')}:`;
  let core: TestServer;
  let gateway: Running & { ready: { base: string; pids: number[] } };
  const path = '/gw/api/session';
  const assertion = () =>
    signPrincipalAssertion({ portalId: 'demo-portal', secret: TEST_CREDENTIALS.portals['demo-portal'], user: { contextId: 'employees', uniqueId: 'alice' }, visitor: 'v', method: 'GET', pathAndQuery: path });
  const call = (header: string) => request(new URL(path, gateway.ready.base).href, { headers: { 'x-svc-principal': header, accept: 'application/json' } });

  beforeAll(async () => {
    core = await startTestServer();
    const config = gatewayConfigFile(tempDir(), [core.baseUrl], { url: REDIS_URL, prefix });
    gateway = await startSvc(['gateway', '--config', config, '--port', '0', '--workers', '2'], {}, (entry) =>
      entry.msg === 'workers ready' ? { base: entry.base as string, pids: entry.pids as number[] } : undefined,
    );
  });

  afterAll(async () => {
    if (gateway && gateway.child.exitCode === null) await stopSvc(gateway);
    await core?.stop();
    const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    await deleteKeys(admin, prefix);
    await admin.quit();
  });

  test('each request is answered, whichever worker takes it', async () => {
    expect(gateway.ready.pids).toHaveLength(2);
    for (let i = 0; i < 10; i++) {
      const answer = await call(assertion());
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toMatchObject({ session: { type: 'USER', principal: { contextId: 'employees', uniqueId: 'alice' } } });
    }
  });

  test('both workers use one core session for alice, held in gateway.redis', async () => {
    const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      expect(await admin.keys(`${prefix}c:*`)).toHaveLength(1);
    } finally {
      await admin.quit();
    }
  });

  test('an assertion accepted once is refused by both workers', async () => {
    const once = assertion();
    expect((await call(once)).status).toBe(200);
    const refusedBy = new Set<number>();
    const before = gateway.log.length;
    for (let i = 0; i < 10; i++) {
      const replay = await call(once);
      expect(replay.status).toBe(401);
      expect(JSON.parse(replay.text)).toMatchObject({ code: 'invalid_assertion' });
    }
    await eventually(() => {
      for (const line of gateway.log.slice(before)) {
        const entry = JSON.parse(line) as { event?: string; pid: number };
        if (entry.event === 'assertion_rejected') refusedBy.add(entry.pid);
      }
      return refusedBy.size === 2;
    }, 'refusals audited by both workers');
    expect([...refusedBy].sort()).toEqual([...gateway.ready.pids].sort());
  });

  test('SIGHUP is kept by the primary (the gateway has no reload): no worker dies of it', async () => {
    const before = gateway.log.length;
    gateway.child.kill('SIGHUP');
    await eventually(() => gateway.log.slice(before).some((line) => line.includes('SIGHUP ignored')), 'the primary says it ignored SIGHUP');
    expect(gateway.ready.pids.every(alive)).toBe(true);
    expect((await call(assertion())).status).toBe(200);
    expect(gateway.log.some((line) => line.includes('worker died'))).toBe(false);
  });

  test('SIGTERM stops the primary and both workers', async () => {
    expect(await stopSvc(gateway)).toBe(0);
    await eventually(() => gateway.ready.pids.every((pid) => !alive(pid)), 'every worker has exited');
  });
});

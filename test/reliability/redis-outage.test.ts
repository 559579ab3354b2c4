/**
 * Redis outages (issue 16): a real `svc server` child process keeps its sessions, lockout counters and
 * stateless-cookie key in a private `redis-server` of this suite (never the shared one), reached
 * through a fault-injecting proxy, while clients log in, check, read and write back to back. Redis is stopped and
 * started again (empty: it keeps nothing on disk), cut off and stalled at the proxy. Throughout, every
 * answer is 200, a clean 503 problem, or 401 where the session went with Redis (a fresh login then
 * works); the core never crashes, answers while Redis is silent (a command timeout, not a hang), says
 * so on `/ready`, and serves again once Redis is back, without a restart. After Redis lost everything,
 * the core writes its stateless-cookie key back, so a core started later signs with the same key.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { handleOf } from '../../server/src/sessions/session-manager';
import { employee, send as sendViaGateway, startTestGateway } from '../gateway/gateway-helpers';
import { seededConfigDocument } from '../helpers/core-server';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';
import { send } from '../helpers/http';
import { redisServerRequirement, startPrivateRedis, type PrivateRedis } from '../helpers/private-redis';
import { describeWithService } from '../helpers/services';
import { startCoreProcess, stopSvc, type Running } from '../helpers/svc-process';
import { outageAndRecovery, readyBecomes, startOutageLoad, type OutageLoad } from './outage-load';

const PREFIX = 'svc-outage:';
/** Short, so that the stall phase needs no long wait (the default is 2000 ms). */
const COMMAND_TIMEOUT_MS = 500;

describeWithService(redisServerRequirement(), 'a core whose Redis goes away under load', () => {
  let dir: string;
  let configFile: string;
  /** A second core on the same Redis (its own SQLite file: a SQLite store belongs to one process). */
  let secondConfigFile: string;
  let redis: PrivateRedis;
  let proxy: FaultProxy;
  let core: Running & { ready: string };
  let load: OutageLoad | undefined;

  const base = () => `${core.ready}/svc`;
  const alive = () => core.child.exitCode === null && core.child.signalCode === null;
  const readyIs = (up: boolean) => readyBecomes(core.ready, 'sessions', up);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-redis-outage-'));
    redis = await startPrivateRedis(['--maxmemory-policy', 'noeviction']);
    proxy = await startFaultProxy(redis.port);
    const doc = await seededConfigDocument(dir);
    doc.sessions = { store: 'redis', redis: { url: `redis://127.0.0.1:${proxy.port}`, prefix: PREFIX, commandTimeoutMs: COMMAND_TIMEOUT_MS } };
    configFile = join(dir, 'core.json');
    writeFileSync(configFile, JSON.stringify(doc));
    const secondDir = join(dir, 'second');
    mkdirSync(secondDir);
    secondConfigFile = join(dir, 'second.json');
    writeFileSync(secondConfigFile, JSON.stringify({ ...doc, server: { ...(doc.server as object), dataDir: secondDir } }));
    core = await startCoreProcess(configFile);
  }, 60_000);

  afterAll(async () => {
    await load?.stop();
    if (core && alive()) await stopSvc(core);
    await proxy?.close();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('stopped, restarted empty, cut and stalled: 200, 503 problems or a fresh login; no crash; recovery without a restart', async () => {
    const started = startOutageLoad(base());
    load = started;
    started.phase('before');
    await started.until('ok', 30);

    // Redis stopped: its clients are refused with 503, /ready says so, the process lives.
    // Started again, empty: every session is gone, so clients log in again, and are served.
    await outageAndRecovery(started, { during: 'stopped', after: 'restarted' }, { takeAway: () => redis.stop(), bringBack: () => redis.start() }, readyIs);
    expect(started.tally('restarted').relogin + started.tally('stopped').relogin).toBeGreaterThan(0);

    // Cut at the proxy (Redis keeps its data): refusals, then the same sessions serve again.
    await outageAndRecovery(started, { during: 'cut', after: 'after cut' }, { takeAway: () => proxy.cut(), bringBack: () => proxy.restore() }, readyIs);

    // Stalled: Redis accepts and says nothing; the core answers 503 after its command timeout.
    await outageAndRecovery(started, { during: 'stalled', after: 'after stall' }, { takeAway: () => proxy.stall(), bringBack: () => proxy.restore() }, readyIs);

    await started.stop();
    load = undefined;
    expect(started.anomalies).toEqual([]);
    expect(alive()).toBe(true);
    const phases = ['before', 'stopped', 'restarted', 'cut', 'after cut', 'stalled', 'after stall'];
    console.log(`Redis outages under load: ${phases.map((p) => `${p} ${JSON.stringify(started.tally(p))}`).join('; ')}`);
  }, 180_000);

  test('a gateway whose replay cache (gateway.redis) is cut or stalled answers 503 problems, then serves again', async () => {
    // A proxy of its own, so that only the gateway's path to Redis fails (the core's stays up).
    const gatewayProxy = await startFaultProxy(redis.port);
    const gateway = await startTestGateway([base()], { redis: { url: `redis://127.0.0.1:${gatewayProxy.port}`, prefix: `${PREFIX}gw:`, commandTimeoutMs: COMMAND_TIMEOUT_MS } });
    const bob = () => sendViaGateway(gateway, '/gw/api/session', { user: employee('bob') });
    const refused = async () => {
      const answer = await bob();
      expect({ status: answer.status, type: answer.headers['content-type'], code: answer.json<{ code: string }>().code }).toEqual({ status: 503, type: expect.stringMatching(/^application\/problem\+json/), code: 'service_unavailable' });
    };
    const servedAgain = async () => {
      let answer = await bob();
      while (answer.status === 503) answer = await bob();
      expect(answer.status).toBe(200);
    };
    try {
      expect((await bob()).status).toBe(200);
      gatewayProxy.stall();
      await refused();
      gatewayProxy.restore();
      await servedAgain();
      gatewayProxy.cut();
      await refused();
      gatewayProxy.restore();
      await servedAgain();
    } finally {
      await gateway.close();
      await gatewayProxy.close();
    }
    expect(alive()).toBe(true);
  }, 60_000);

  test('after Redis restarted empty, the stateless-cookie key is back in Redis: a core started later shares it', async () => {
    await redis.stop();
    await redis.start();
    await readyIs(true);
    // The first core writes its key back on reconnecting; a second core adopts it at its start.
    const direct = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      for (let tries = 0; (await direct.get(`${PREFIX}k:stateless`)) === null; tries++) {
        if (tries > 200) throw new Error('the stateless key was not written back');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      direct.disconnect();
    }
    const second = await startCoreProcess(secondConfigFile);
    try {
      // A visitor's stateless session (its flow state signed in the cookie) from the first core holds on the second.
      const first = await send(`${base()}/resources/contexts/employees/subjects/bob/password/forgot`, { headers: { accept: 'application/json' } });
      expect(first.status).toBe(200);
      expect(first.cookie).toMatch(/^s1\./);
      const onSecond = await send(`${second.ready}/svc/resources/session`, { cookie: first.cookie, headers: { accept: 'application/json' } });
      expect(onSecond.status).toBe(200);
      expect(onSecond.json?.session).toMatchObject({ type: 'ANON', uniqueId: handleOf(first.cookie!) });
      expect(onSecond.cookie).toBeUndefined();
    } finally {
      await stopSvc(second);
    }
    expect(alive()).toBe(true);
  }, 60_000);
});

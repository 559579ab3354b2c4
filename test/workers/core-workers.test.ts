/**
 * `svc server --workers 2` on PostgreSQL and Redis (SPEC section 12, "Workers"), the real command as
 * its own process: both workers serve one port, and which one served a request is read from the
 * request log (its X-Request-Id and pid). A login served by one worker is used on the other; a
 * reload through HTTP on one worker reaches the other; a killed worker is replaced while the port
 * keeps answering; four workers starting together on an empty schema migrate it once; SIGTERM
 * stops the primary and every worker. Skipped with a message without
 * PostgreSQL or Redis, unless SVC_TEST_REQUIRE_ALL=1.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import Redis from 'ioredis';
import { MIGRATIONS } from '../../server/src/subjects/postgres-migrations';
import { RedisSessionStore } from '../../server/src/sessions/redis-session-store';
import { startTestServer, TEST_CREDENTIALS } from '../helpers/core-server';
import { adminQuery, onPostgres, suiteSchemas } from '../helpers/postgres';
import { deleteKeys } from '../helpers/redis-keys';
import { describeWithService, postgresRequirement, REDIS_URL, redisRequirement } from '../helpers/services';
import { alive, startSvc, stopSvc, type Running } from '../helpers/svc-process';
import { coreConfigFile, eventually, request, servedBy, sessionCookie, suiteDirs, type Answer } from './helpers';

jest.setTimeout(120_000);

describeWithService(redisRequirement(), 'svc server --workers 2', () => {
  describeWithService(postgresRequirement(), 'on PostgreSQL and Redis', () => {
    const schemas = suiteSchemas('workers');
    const tempDir = suiteDirs();
    const prefix = `svc-test:workers:${process.pid}:${randomBytes(6).toString('hex')}:`;
    let svc: Running & { ready: { base: string; pids: number[] } };
    let base: string;
    let configFile: string;
    let bob: string;
    const allPids = new Set<number>();

    const form = (params: Record<string, string>) => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(params).toString(),
    });
    const readBob = (cookie: string): Promise<Answer> =>
      request(`${base}/resources/contexts/employees/subjects/bob`, { headers: { cookie: `SVCSESSIONID=${cookie}`, accept: 'application/json' } });

    beforeAll(async () => {
      const { url } = await schemas.create();
      const sessions = { store: 'redis', redis: { url: REDIS_URL, prefix } };
      // Seeded by an in-process core on the same schema, then served by the command's workers.
      const seeder = await startTestServer({ configure: onPostgres(url), sessionStore: new RedisSessionStore({ url: REDIS_URL, prefix }) });
      await seeder.stop();
      configFile = await coreConfigFile(tempDir(), (doc) => {
        onPostgres(url)(doc);
        doc.sessions = sessions;
      });
      svc = await startSvc(['server', '--config', configFile, '--port', '0', '--workers', '2'], {}, (entry) =>
        entry.msg === 'workers ready' ? { base: entry.base as string, pids: entry.pids as number[] } : undefined,
      );
      base = svc.ready.base;
      for (const pid of svc.ready.pids) allPids.add(pid);
    });

    afterAll(async () => {
      if (svc && svc.child.exitCode === null) await stopSvc(svc);
      const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      await deleteKeys(admin, prefix);
      await admin.quit();
    });

    test('two workers, distinct processes apart from the primary, on one port', () => {
      expect(svc.ready.pids).toHaveLength(2);
      expect(new Set(svc.ready.pids).size).toBe(2);
      expect(svc.ready.pids).not.toContain(svc.child.pid);
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/svc$/);
    });

    test('a login served by one worker is used on the other: both workers serve bob with it', async () => {
      const login = await request(`${base}/login`, form({ clientid: 'svc-web', user: 'bob', password: TEST_CREDENTIALS.users.bob }));
      expect(login.status).toBe(200);
      bob = sessionCookie(login);
      const loggedInBy = await servedBy(svc, login);
      const servedReads = new Map<number, number>();
      for (let i = 0; i < 40; i++) {
        const read = await readBob(bob);
        expect(read.status).toBe(200);
        expect(JSON.parse(read.text)).toMatchObject({ subject: { uniqueId: 'bob' } });
        const pid = await servedBy(svc, read);
        servedReads.set(pid, (servedReads.get(pid) ?? 0) + 1);
      }
      expect([...servedReads.keys()].sort()).toEqual([...svc.ready.pids].sort());
      expect(servedReads.get(svc.ready.pids.find((pid) => pid !== loggedInBy)!)).toBeGreaterThan(0);
    });

    test('a logout on one worker ends the session on both', async () => {
      const login = await request(`${base}/login`, form({ clientid: 'svc-web', user: 'alice', password: TEST_CREDENTIALS.users.alice }));
      const alice = sessionCookie(login);
      const logout = await request(`${base}/logout`, { method: 'POST', headers: { cookie: `SVCSESSIONID=${alice}`, accept: 'application/json' } });
      expect(logout.status).toBeLessThan(400);
      const refusedBy = new Set<number>();
      for (let i = 0; i < 20; i++) {
        const read = await request(`${base}/resources/contexts/employees/subjects/alice`, { headers: { cookie: `SVCSESSIONID=${alice}`, accept: 'application/json' } });
        expect(read.status).toBe(401);
        refusedBy.add(await servedBy(svc, read));
      }
      expect(refusedBy.size).toBe(2);
    });

    test('a configuration reloaded through HTTP on one worker is reloaded by the other too', async () => {
      const admin = sessionCookie(await request(`${base}/login`, form({ clientid: 'svc-web', user: 'svcadmin', password: TEST_CREDENTIALS.users.svcadmin })));
      const original = readFileSync(configFile, 'utf8');
      const doc = JSON.parse(original) as { global?: Record<string, unknown> };
      // Observable on every request: the status of a DENY (401 by default).
      doc.global = { ...doc.global, 'authz.denyStatus': 403 };
      writeFileSync(configFile, JSON.stringify(doc));
      try {
        const reload = await request(`${base}/config/reload`, { method: 'POST', headers: { cookie: `SVCSESSIONID=${admin}`, accept: 'application/json', origin: new URL(base).origin } });
        expect(reload.status).toBeLessThan(400);
        // bob may not read alice: DENY, now 403 on whichever worker answers (the other reloads on its SIGHUP).
        await eventually(async () => {
          const statuses = new Map<number, number>();
          for (let i = 0; i < 12; i++) {
            const denied = await request(`${base}/resources/contexts/employees/subjects/alice`, { headers: { cookie: `SVCSESSIONID=${bob}`, accept: 'application/json' } });
            statuses.set(await servedBy(svc, denied), denied.status);
          }
          return statuses.size === 2 && [...statuses.values()].every((status) => status === 403);
        }, 'both workers answer a DENY with 403 after the reload', 40);
      } finally {
        writeFileSync(configFile, original);
      }
    });

    test('a reload naming a store the workers would not share is refused by every worker, over HTTP and on SIGHUP', async () => {
      const admin = sessionCookie(await request(`${base}/login`, form({ clientid: 'svc-web', user: 'svcadmin', password: TEST_CREDENTIALS.users.svcadmin })));
      const original = readFileSync(configFile, 'utf8');
      const doc = JSON.parse(original) as { contexts: Array<Record<string, unknown>> };
      // Each worker would open its own SQLite file: two views of "customers", writes lost between them.
      doc.contexts[1] = { ...doc.contexts[1], store: 'sqlite' };
      writeFileSync(configFile, JSON.stringify(doc));
      try {
        const refusals = svc.log.length;
        const reload = await request(`${base}/config/reload`, { method: 'POST', headers: { cookie: `SVCSESSIONID=${admin}`, accept: 'application/json', origin: new URL(base).origin } });
        expect(reload.status).toBe(400);
        expect(JSON.parse(reload.text)).toMatchObject({ code: 'invalid_request', errors: [{ path: 'config', message: expect.stringContaining('contexts[1].store is "sqlite", one per process') }] });
        process.kill(svc.child.pid!, 'SIGHUP');
        const refusedBy = () => new Set(svc.log.slice(refusals).filter((line) => line.includes('"reload_refused"')).map((line) => (JSON.parse(line) as { pid: number }).pid));
        await eventually(() => refusedBy().size === 2, 'both workers refused the file on SIGHUP');
        expect([...refusedBy()].sort()).toEqual([...svc.ready.pids].sort());
        // Still one store: a subject created on either worker is read by both.
        const created = await request(`${base}/resources/contexts/customers/subjects`, {
          method: 'POST',
          headers: { cookie: `SVCSESSIONID=${admin}`, 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ subject: { uniqueId: 'reload-probe', attributes: { mail: 'reload-probe@example.com' } } }),
        });
        expect(created.status).toBe(201);
        const readers = new Set<number>();
        for (let i = 0; i < 12; i++) {
          const read = await request(`${base}/resources/contexts/customers/subjects/reload-probe`, { headers: { cookie: `SVCSESSIONID=${admin}`, accept: 'application/json' } });
          expect(read.status).toBe(200);
          readers.add(await servedBy(svc, read));
        }
        expect(readers.size).toBe(2);
      } finally {
        writeFileSync(configFile, original);
      }
    });

    test('a killed worker is replaced; the port answers throughout', async () => {
      const [victim, survivor] = svc.ready.pids;
      process.kill(victim, 'SIGKILL');
      // Until the primary notices (a few ms), it may still hand the dead worker a new connection, which
      // is lost with it like the requests it was serving (node's cluster): requests start once it has.
      await eventually(() => svc.log.some((line) => line.includes('worker died; replacing it') && line.includes(String(victim))), 'the primary noticed the death');
      let replacement: number | undefined;
      await eventually(async () => {
        const read = await readBob(bob);
        expect(read.status).toBe(200);
        const pid = await servedBy(svc, read);
        if (pid !== victim && pid !== survivor) replacement = pid;
        return replacement !== undefined;
      }, 'a new worker serves requests');
      allPids.add(replacement!);
      expect(alive(victim)).toBe(false);
      // The session made before the death still works on the replacement (it is in Redis).
      const served = new Set<number>();
      for (let i = 0; i < 30 && served.size < 2; i++) {
        const read = await readBob(bob);
        expect(read.status).toBe(200);
        served.add(await servedBy(svc, read));
      }
      expect([...served].sort()).toEqual([survivor, replacement!].sort());
    });

    test('four workers starting together on a new, empty schema: the schema is migrated once and all four listen', async () => {
      const { schema, url } = await schemas.create();
      const file = await coreConfigFile(tempDir(), (doc) => {
        onPostgres(url)(doc);
        doc.sessions = { store: 'redis', redis: { url: REDIS_URL, prefix } };
      });
      const fresh = await startSvc(['server', '--config', file, '--port', '0', '--workers', '4'], {}, (entry) =>
        entry.msg === 'workers ready' ? { base: entry.base as string, pids: entry.pids as number[] } : undefined,
      );
      try {
        expect(new Set(fresh.ready.pids).size).toBe(4);
        expect(await adminQuery(`SELECT version FROM ${schema}.svc_schema_version ORDER BY version`)).toEqual(MIGRATIONS.map((_, i) => ({ version: i + 1 })));
        // Unseeded: bob is not there, and every worker says so the same way.
        const login = await request(`${fresh.ready.base}/login`, form({ clientid: 'svc-web', user: 'bob', password: TEST_CREDENTIALS.users.bob }));
        expect(login.status).toBe(401);
      } finally {
        expect(await stopSvc(fresh)).toBe(0);
      }
    });

    test('SIGTERM stops the primary and every worker, with exit code 0', async () => {
      const workers = [...allPids].filter(alive);
      expect(workers).toHaveLength(2);
      expect(await stopSvc(svc)).toBe(0);
      await eventually(() => workers.every((pid) => !alive(pid)), 'every worker has exited');
      await expect(request(`${base}/health`)).rejects.toThrow(/ECONNREFUSED/);
    });
  });
});

/**
 * Roles across cores (SPEC section 12): a subject write on one core drops every core's cached roles
 * for that subject through Redis pub/sub, so alice, who loses `admin` on one core, is refused on the
 * other within one second (the roles cache alone would keep her admin for up to 5 s); and a core whose
 * subscription was cut drops its whole roles cache when it subscribes again. Real core servers on one
 * PostgreSQL and one Redis; skipped with a message without them, unless SVC_TEST_REQUIRE_ALL=1.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { RedisSessionStore } from '../../server/src/sessions/redis-session-store';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send } from '../helpers/http';
import { login } from '../helpers/login';
import { onPostgres, suiteSchemas } from '../helpers/postgres';
import { deleteKeys } from '../helpers/redis-keys';
import { describeWithService, postgresRequirement, REDIS_URL, redisRequirement } from '../helpers/services';

const { users } = TEST_CREDENTIALS;

/** SPEC section 12: "a revoked admin role stops working everywhere within a second". */
const BOUND_MS = 1000;

describeWithService(redisRequirement(), 'roles across cores', () => {
  describeWithService(postgresRequirement(), 'on PostgreSQL and Redis', () => {
    const schemas = suiteSchemas('roles');
    const prefix = `svc-test:roles:${process.pid}:${randomBytes(6).toString('hex')}:`;
    let url: string;
    let a: TestServer;
    let b: TestServer;
    const servers: TestServer[] = [];

    const cookieAt = async (server: TestServer, user: 'alice' | 'svcadmin') => {
      const answer = await login(server.baseUrl, { clientid: 'svc-web', user, password: users[user] });
      expect(answer.status).toBe(200);
      return answer.cookie!;
    };
    const readBob = (server: TestServer, cookie: string) => send(`${server.baseUrl}/resources/contexts/employees/subjects/bob`, { cookie });
    const setRoles = async (server: TestServer, roles: string[]) => {
      const answer = await send(`${server.baseUrl}/resources/contexts/employees/subjects/alice`, { method: 'PUT', cookie: await cookieAt(server, 'svcadmin'), json: { subject: { attributes: { roles } } } });
      expect(answer.status).toBe(200);
    };
    /** Reads bob as alice on `server` until refused or the bound has passed; resolves the last status. */
    const refusedWithinBound = async (server: TestServer, cookie: string) => {
      const deadline = Date.now() + BOUND_MS;
      let status = 200;
      while (status === 200 && Date.now() < deadline) status = (await readBob(server, cookie)).status;
      return status;
    };

    beforeAll(async () => {
      ({ url } = await schemas.create());
      a = await startTestServer({ configure: onPostgres(url), sessionStore: new RedisSessionStore({ url: REDIS_URL, prefix }) });
      b = await startTestServer({ configure: onPostgres(url), sessionStore: new RedisSessionStore({ url: REDIS_URL, prefix }), seed: false });
      servers.push(a, b);
    });
    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      await deleteKeys(admin, prefix);
      await admin.quit();
    });

    test('alice loses admin on one core and is refused on the other within one second', async () => {
      const alice = await cookieAt(b, 'alice');
      expect((await readBob(b, alice)).status).toBe(200); // b has cached alice's roles
      await setRoles(a, ['user']);
      expect(await refusedWithinBound(b, alice)).toBe(401);
      await setRoles(a, ['admin', 'user']);
    });

    test('a core whose subscription was cut drops its whole roles cache when it subscribes again', async () => {
      // A third core on the same subjects but without the feed writes behind the others' backs.
      const c = await startTestServer({ configure: onPostgres(url), seed: false });
      servers.push(c);
      const alice = await cookieAt(b, 'alice');
      expect((await readBob(b, alice)).status).toBe(200);
      await setRoles(c, ['user']);
      const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      try {
        const name = `${prefix}changes`;
        const ids = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub')).split('\n').filter((line) => line.includes(` name=${name} `)).map((line) => /^id=(\d+)/.exec(line)![1]);
        expect(ids).toHaveLength(2);
        for (const id of ids) await admin.call('CLIENT', 'KILL', 'ID', id);
      } finally {
        await admin.quit();
      }
      expect(await refusedWithinBound(b, alice)).toBe(401);
    });
  });
});

/**
 * Two real core servers on one PostgreSQL and one Redis (SPEC section 12) share what the pre-login
 * flows decide by: a visitor's forgotten-password flow runs with its requests alternating between the
 * cores (the stateless cookie's key is shared, the reset marker is in Redis), a reset happens once
 * across both, an unknown name gets the same decoy questions from both (their key is in Redis too), and the wrong-answer counter and the registration throttle count across both.
 * Skipped with a message without PostgreSQL or Redis, unless SVC_TEST_REQUIRE_ALL=1.
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

const ANSWERS = TEST_CREDENTIALS.answers.bob;

describeWithService(redisRequirement(), 'pre-login flows across two cores', () => {
  describeWithService(postgresRequirement(), 'on PostgreSQL and Redis', () => {
    const schemas = suiteSchemas('flows');
    const prefix = `svc-test:flows:${process.pid}:${randomBytes(6).toString('hex')}:`;
    let a: TestServer;
    let b: TestServer;
    const forgot = (server: TestServer, name = 'bob') => `${server.baseUrl}/resources/contexts/employees/subjects/${name}/password/forgot`;
    const register = (server: TestServer, id: string) =>
      send(`${server.baseUrl}/resources/contexts/customers/subjects`, {
        json: { subject: { uniqueId: id, attributes: { mail: `${id}@example.org`, givenName: 'R', familyName: 'S', password: `Registers-${id}-1` } } },
      });

    beforeAll(async () => {
      const { url } = await schemas.create();
      const configure = (doc: Record<string, unknown>) => {
        onPostgres(url)(doc);
        doc.global = { ...(doc.global as object | undefined), 'registration.perAddress': 3 };
      };
      a = await startTestServer({ configure, sessionStore: new RedisSessionStore({ url: REDIS_URL, prefix }) });
      b = await startTestServer({ configure, sessionStore: new RedisSessionStore({ url: REDIS_URL, prefix }), seed: false });
    });
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      await deleteKeys(admin, prefix);
      await admin.quit();
    });

    test('a forgotten-password flow alternating between the cores succeeds once; its answered cookie cannot reset again on either', async () => {
      const asked = await send(forgot(a), { headers: { accept: 'application/json' } });
      expect(asked.status).toBe(200);
      const answered = await send(forgot(b), { method: 'PUT', cookie: asked.cookie, json: { answers: ANSWERS } });
      expect(answered.status).toBe(200);
      const reset = await send(forgot(a), { method: 'PUT', cookie: answered.cookie, json: { password: 'New-bob-pass-41' } });
      expect(reset.status).toBe(204);
      const again = await send(forgot(b), { method: 'PUT', cookie: answered.cookie, json: { password: 'Other-bob-pass-42' } });
      expect(again.status).toBeGreaterThanOrEqual(400);
      expect((await login(b.baseUrl, { clientid: 'svc-web', user: 'bob', password: 'New-bob-pass-41' })).status).toBe(200);
    });

    test('wrong answers count across both cores: the 4th, on either, is refused unverified', async () => {
      const asked = await send(forgot(a, 'alice'), { headers: { accept: 'application/json' } });
      // alice has no questions: decoys, and the same counter rules.
      const statuses = [];
      for (const server of [a, b, a, b, a]) statuses.push((await send(forgot(server, 'alice'), { method: 'PUT', cookie: asked.cookie, json: { answers: ['x', 'y'] } })).status);
      expect(statuses).toEqual([400, 400, 400, 429, 429]);
    });

    test('a name that designates no subject gets the same decoy questions from both cores (their data directories differ)', async () => {
      expect(a.dataDir).not.toBe(b.dataDir);
      for (const name of ['nobody-here', 'Another.Missing', 'alice']) {
        const [fromA, fromB] = await Promise.all([a, b].map((server) => send(forgot(server, name), { headers: { accept: 'application/json' } })));
        expect(fromA.status).toBe(200);
        expect(fromB.json?.questions).toEqual(fromA.json?.questions);
      }
    });

    test('the registration throttle counts across both cores', async () => {
      const statuses = [];
      for (const [i, server] of [a, b, a, b].entries()) statuses.push((await register(server, `reg${i}`)).status);
      expect(statuses).toEqual([201, 201, 201, 429]);
      await expect(b.core.registrations.perAddress.attempts('127.0.0.1')).resolves.toBe(4);
    });
  });
});

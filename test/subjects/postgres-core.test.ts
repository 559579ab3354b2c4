/**
 * Cores on one PostgreSQL (SPEC section 12): two real core servers sharing one schema see each
 * other's writes, and two If-Match updates racing on different cores give exactly one 200 and one
 * 412. A core whose schema is behind with `migrate: refuse` does not start; /ready names PostgreSQL.
 */
import pino from 'pino';
import { buildConfig } from '../../server/src/config/load';
import { startServer } from '../../server/src/server';
import { startTestServer, testConfigDocument, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send } from '../helpers/http';
import { login } from '../helpers/login';
import { onPostgres, suiteSchemas } from '../helpers/postgres';
import { describeWithService, postgresRequirement } from '../helpers/services';

const postgres = postgresRequirement();

describeWithService(postgres, 'cores on PostgreSQL', () => {
  const schemas = suiteSchemas('core');
  let a: TestServer;
  let b: TestServer;
  let cookieA: string;
  let cookieB: string;

  const subject = (server: TestServer, id = '') => `${server.baseUrl}/resources/contexts/employees/subjects${id ? `/${id}` : ''}`;
  const adminLogin = async (server: TestServer) => {
    const answer = await login(server.baseUrl, { clientid: 'svc-web', user: 'alice', password: TEST_CREDENTIALS.users.alice }, { headers: { accept: 'application/json' } });
    expect(answer.status).toBe(200);
    return answer.cookie!;
  };

  beforeAll(async () => {
    const { url } = await schemas.create();
    a = await startTestServer({ configure: onPostgres(url) });
    b = await startTestServer({ configure: onPostgres(url, { migrate: 'refuse' }), seed: false });
    cookieA = await adminLogin(a);
    cookieB = await adminLogin(b);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  test('/ready names PostgreSQL and says it answers', async () => {
    const answer = await send(`${a.url}/ready`);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ status: 'ready', checks: { sessions: 'up', postgres: 'up' } });
  });

  test('a subject created on one core is read, searched, updated and deleted on the other', async () => {
    const created = await send(subject(a), { cookie: cookieA, json: { subject: { uniqueId: 'carol', attributes: { mail: 'carol@example.com', password: 'Carol-pass-99' } } } });
    expect(created.status).toBe(201);
    const read = await send(subject(b, 'carol'), { cookie: cookieB });
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe('"1"');
    const found = await send(`${subject(b)}?filter=${encodeURIComponent('mail eq "CAROL@example.com"')}`, { cookie: cookieB });
    expect(found.json).toMatchObject({ total: 1, results: [{ uniqueId: 'carol' }] });
    const updated = await send(subject(b, 'carol'), { method: 'PUT', cookie: cookieB, json: { subject: { attributes: { givenName: 'Carol' } } } });
    expect(updated.status).toBe(200);
    expect((await send(subject(a, 'carol'), { cookie: cookieA })).json).toMatchObject({ subject: { attributes: { givenName: 'Carol' } } });
    // carol logs in on the core that did not create her: her hash is in the shared store.
    expect((await login(b.baseUrl, { clientid: 'svc-web', user: 'CAROL@example.com', password: 'Carol-pass-99' })).status).toBe(200);
    // Uniqueness holds across cores: the other core cannot take her mail or her id in another case.
    const taken = await send(subject(b), { cookie: cookieB, json: { subject: { uniqueId: 'Carol', attributes: { mail: 'other@example.com' } } } });
    expect(taken.status).toBe(409);
    expect((await send(subject(a, 'carol'), { method: 'DELETE', cookie: cookieA })).status).toBe(204);
    expect((await send(subject(b, 'carol'), { cookie: cookieB })).status).toBe(404);
  });

  test('two If-Match updates racing on different cores: exactly one 200 and one 412', async () => {
    await send(subject(a), { cookie: cookieA, json: { subject: { uniqueId: 'dave', attributes: { mail: 'dave@example.com' } } } });
    for (let round = 0; round < 5; round++) {
      const etag = (await send(subject(a, 'dave'), { cookie: cookieA })).headers.get('etag')!;
      const put = (server: TestServer, cookie: string, name: string) =>
        send(subject(server, 'dave'), { method: 'PUT', cookie, headers: { 'if-match': etag }, json: { subject: { attributes: { givenName: name } } } });
      const answers = await Promise.all([put(a, cookieA, `a${round}`), put(b, cookieB, `b${round}`)]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 412]);
      const winner = answers.find((r) => r.status === 200)!;
      const now = await send(subject(b, 'dave'), { cookie: cookieB });
      expect(now.json).toEqual(winner.json);
      expect(now.headers.get('etag')).toBe(`"${Number(JSON.parse(etag)) + 1}"`);
    }
  });

  test('a core on a schema behind its version with migrate "refuse" does not start, and names svc migrate', async () => {
    const { url } = await schemas.create();
    const doc = await testConfigDocument('/nonexistent', a.hasher);
    onPostgres(url, { migrate: 'refuse' })(doc);
    await expect(startServer(buildConfig(doc, {}), { logger: pino({ level: 'silent' }), hasher: a.hasher })).rejects.toThrow(
      /schema is at version 0 and this svc needs version \d+.*svc migrate --config FILE/,
    );
  });

  test('/ready answers 503 and names PostgreSQL when it stops answering', async () => {
    const { url } = await schemas.create();
    const c = await startTestServer({ configure: onPostgres(url), seed: false });
    try {
      await c.core.subjects.context('employees').store.close();
      const answer = await send(`${c.url}/ready`);
      expect(answer.status).toBe(503);
      expect(answer.json).toEqual({ status: 'unavailable', checks: { sessions: 'up', postgres: 'down' } });
      const system = await c.core.sessions.create({ type: 'SYSTEM', clientId: 'svc-web', principal: null, level: 2, authenticator: 'system' });
      const read = await send(subject(c, 'alice'), { cookie: system.cookieValue });
      expect(read.status).toBe(503);
      expect(read.json).toMatchObject({ code: 'service_unavailable', detail: 'the subject store is closed' });
    } finally {
      await c.stop();
    }
  });
});

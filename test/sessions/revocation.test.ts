/**
 * Sessions end with their credentials (SPEC section 4, "Lifetimes"; issue 24 items 6 and 7): a
 * password change or reset, a disable or a delete revokes every other session of the subject, and a
 * revoked id answers 401 `session_revoked` (a page: the login page) until its absolute expiry, never
 * step 5's new ANON session; on cores sharing Redis, on every core at once. A principal holds at most
 * `auth.maxSessionsPerPrincipal` USER sessions (default 50): the 51st login ends the oldest.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { Connection } from '../../client/src/connection';
import { SvcSessionError } from '../../client/src/errors';
import { RedisSessionStore } from '../../server/src/sessions/redis-session-store';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send, sessionOf, type Sent } from '../helpers/http';
import { login } from '../helpers/login';
import { onPostgres, suiteSchemas } from '../helpers/postgres';
import { deleteKeys } from '../helpers/redis-keys';
import { describeWithService, postgresRequirement, REDIS_URL, redisRequirement } from '../helpers/services';

const { users } = TEST_CREDENTIALS;
const REVOKED_CHALLENGE = 'SvcSession realm="svc", error="session_revoked"';

const logIn = async (server: TestServer, user: 'bob' | 'alice' | 'svcadmin', password: string = users[user]) => {
  const answer = await login(server.baseUrl, { clientid: 'svc-web', user, password });
  expect(answer.status).toBe(200);
  return answer.cookie!;
};
const sessionAt = (server: TestServer, cookie: string, headers: Record<string, string> = {}) => send(`${server.baseUrl}/resources/session`, { cookie, headers });
const subjectUrl = (server: TestServer, id: string) => `${server.baseUrl}/resources/contexts/employees/subjects/${id}`;

function expectRevoked(answer: Sent): void {
  expect(answer.status).toBe(401);
  expect(answer.json).toMatchObject({ code: 'session_revoked', status: 401 });
  expect(answer.headers.get('www-authenticate')).toBe(REVOKED_CHALLENGE);
  // Never step 5's new session: no cookie is set.
  expect(answer.cookie).toBeUndefined();
}

describe('revocation on one core (memory sessions)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  test('an own password change revokes the other session: 401 session_revoked, every time; a page goes to the login page', async () => {
    const mine = await logIn(server, 'bob');
    const other = await logIn(server, 'bob');
    const changed = await send(`${subjectUrl(server, 'bob')}/password`, { method: 'PUT', cookie: mine, json: { oldPassword: users.bob, newPassword: 'Changed-secret-4711' } });
    expect(changed.status).toBe(204);
    expect(sessionOf(await sessionAt(server, mine))).toMatchObject({ type: 'USER', principal: { uniqueId: 'bob' } });
    expectRevoked(await sessionAt(server, other));
    expectRevoked(await send(subjectUrl(server, 'bob'), { cookie: other }));
    expectRevoked(await sessionAt(server, other));
    const page = await sessionAt(server, other, { accept: 'text/html' });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe(`/svc/login?goto=${encodeURIComponent('/svc/resources/session')}`);
    // The login itself serves it as it serves anyone: bob logs in again with the new password.
    const again = await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: 'Changed-secret-4711' }, { cookie: other });
    expect(again.status).toBe(200);
    expect(sessionOf(await sessionAt(server, again.cookie!))).toMatchObject({ type: 'USER' });
    const reset = await send(`${subjectUrl(server, 'bob')}/password`, { method: 'PUT', cookie: again.cookie, json: { oldPassword: 'Changed-secret-4711', newPassword: users.bob } });
    expect(reset.status).toBe(204);
  });

  test('an admin\'s password write and a disable revoke every session of the subject; the admin\'s own stays', async () => {
    const admin = await logIn(server, 'svcadmin');
    const first = await logIn(server, 'bob');
    const written = await send(subjectUrl(server, 'bob'), { method: 'PUT', cookie: admin, json: { subject: { attributes: { password: 'Admin-chosen-9876' } } } });
    expect(written.status).toBe(200);
    expectRevoked(await sessionAt(server, first));
    const second = await logIn(server, 'bob', 'Admin-chosen-9876');
    const disabled = await send(subjectUrl(server, 'bob'), { method: 'PUT', cookie: admin, json: { subject: { attributes: { disabled: 'true' } } } });
    expect(disabled.status).toBe(200);
    expectRevoked(await sessionAt(server, second));
    expect(sessionOf(await sessionAt(server, admin))).toMatchObject({ type: 'SYSTEM' });
    const restored = await send(subjectUrl(server, 'bob'), { method: 'PUT', cookie: admin, json: { subject: { attributes: { disabled: 'false', password: users.bob } } } });
    expect(restored.status).toBe(200);
  });

  test('the client library reports session_revoked as a SvcSessionError and does not log in again with the old password', async () => {
    const conn = await Connection.open({ kind: 'password', user: 'bob', password: users.bob }, { config: { baseUrl: server.baseUrl, clientId: 'svc-web' } });
    expect((await conn.session()).principal).toMatchObject({ uniqueId: 'bob' });
    const mine = await logIn(server, 'bob');
    expect((await send(`${subjectUrl(server, 'bob')}/password`, { method: 'PUT', cookie: mine, json: { oldPassword: users.bob, newPassword: 'Library-secret-8642' } })).status).toBe(204);
    const logins = server.core.metrics.registry;
    const before = await logins.getSingleMetricAsString('svc_logins_total');
    const refused = await conn.get('bob').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SvcSessionError);
    expect(refused).toMatchObject({ status: 401, code: 'session_revoked' });
    expect(await logins.getSingleMetricAsString('svc_logins_total')).toBe(before);
    await conn.detach();
    expect((await send(`${subjectUrl(server, 'bob')}/password`, { method: 'PUT', cookie: mine, json: { oldPassword: 'Library-secret-8642', newPassword: users.bob } })).status).toBe(204);
  });

  test('the 51st USER session of a principal ends its oldest (auth.maxSessionsPerPrincipal, default 50); others keep theirs', async () => {
    expect(server.core.config.settings.session.maxSessionsPerPrincipal).toBe(50);
    const bob = await logIn(server, 'bob');
    const alice: string[] = [];
    for (let n = 0; n < 51; n++) alice.push(await logIn(server, 'alice'));
    // The oldest is merely ended (a new ANON session, as for any dead one), not revoked.
    expect(sessionOf(await sessionAt(server, alice[0]))).toMatchObject({ type: 'ANON', principal: null });
    for (const cookie of [alice[1], alice[50], bob]) expect(sessionOf(await sessionAt(server, cookie))).toMatchObject({ type: 'USER' });
    alice.push(await logIn(server, 'alice'));
    expect(sessionOf(await sessionAt(server, alice[1]))).toMatchObject({ type: 'ANON' });
    expect(sessionOf(await sessionAt(server, alice[2]))).toMatchObject({ type: 'USER' });
  });
});

describeWithService(redisRequirement(), 'revocation across cores', () => {
  describeWithService(postgresRequirement(), 'two cores on PostgreSQL and Redis', () => {
    const schemas = suiteSchemas('revocation');
    const prefix = `svc-test:revocation:${process.pid}:${randomBytes(6).toString('hex')}:`;
    const servers: TestServer[] = [];
    let a: TestServer;
    let b: TestServer;

    beforeAll(async () => {
      const { url } = await schemas.create();
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

    test('a password change on one core revokes bob\'s session on the other within one second', async () => {
      const onA = await logIn(a, 'bob');
      const onB = await logIn(b, 'bob');
      expect(sessionOf(await sessionAt(b, onB))).toMatchObject({ type: 'USER' });
      const changed = await send(`${subjectUrl(a, 'bob')}/password`, { method: 'PUT', cookie: onA, json: { oldPassword: users.bob, newPassword: 'Cluster-secret-2468' } });
      expect(changed.status).toBe(204);
      const deadline = Date.now() + 1000;
      let answer = await sessionAt(b, onB);
      while (answer.status === 200 && Date.now() < deadline) answer = await sessionAt(b, onB);
      expectRevoked(answer);
      // Remembered on both cores, in the shared store.
      expectRevoked(await sessionAt(a, onB));
      expect(sessionOf(await sessionAt(b, onA))).toMatchObject({ type: 'USER', principal: { uniqueId: 'bob' } });
    });

    test('the cap holds across cores: the 51st session, made on the other core, ends the oldest', async () => {
      const first = await logIn(a, 'alice');
      for (let n = 0; n < 50; n++) await logIn(n % 2 ? a : b, 'alice');
      expect(sessionOf(await sessionAt(b, first))).toMatchObject({ type: 'ANON' });
    });
  });
});

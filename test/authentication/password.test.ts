import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send, sessionOf } from '../helpers/http';
import { login } from '../helpers/login';

const { users } = TEST_CREDENTIALS;
const storedHash = async (server: TestServer, id: string) => String((await server.core.subjects.read('employees', id)).attributes.password);

describe('own password change and hash upgrade (cheap test hashing)', () => {
  let server: TestServer;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer();
    base = server.baseUrl;
  });
  afterAll(() => server.stop());
  const passwordUrl = (id: string) => `${base}/resources/contexts/employees/subjects/${id}/password`;

  it('204; the subject\'s other sessions end, the caller\'s stays; the new password works', async () => {
    const mine = (await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob })).cookie;
    const other = (await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob })).cookie;
    const changed = await send(passwordUrl('bob'), { method: 'PUT', cookie: mine, json: { oldPassword: users.bob, newPassword: 'Brand-new-secret-42' } });
    expect(changed.status).toBe(204);
    expect(sessionOf(await send(`${base}/resources/session`, { cookie: mine }))).toMatchObject({ type: 'USER', principal: { uniqueId: 'bob' } });
    // The other one is revoked: 401 session_revoked, not a new ANON session (SPEC 4).
    expect((await send(`${base}/resources/session`, { cookie: other })).json?.code).toBe('session_revoked');
    expect((await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob })).status).toBe(401);
    expect((await login(base, { clientid: 'svc-web', user: 'bob', password: 'Brand-new-secret-42' })).status).toBe(200);
  });

  it('a wrong old password, a weak new one or a malformed body is 400', async () => {
    const cookie = (await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice })).cookie;
    const wrong = await send(passwordUrl('alice'), { method: 'PUT', cookie, json: { oldPassword: 'nope', newPassword: 'Another-secret-77' } });
    expect(wrong.status).toBe(400);
    const weak = await send(passwordUrl('alice'), { method: 'PUT', cookie, json: { oldPassword: users.alice, newPassword: 'password' } });
    expect(weak.json?.code).toBe('weak_password');
    const malformed = await send(passwordUrl('alice'), { method: 'PUT', cookie, json: { newPassword: 'Another-secret-77' } });
    expect(malformed.status).toBe(400);
  });

  it('only the subject itself changes its password here; others are refused', async () => {
    const bob = (await login(base, { clientid: 'svc-web', user: 'bob', password: 'Brand-new-secret-42' })).cookie;
    const denied = await send(passwordUrl('alice'), { method: 'PUT', cookie: bob, json: { oldPassword: users.alice, newPassword: 'Another-secret-77' } });
    expect(denied.status).toBe(401);
    expect(denied.json?.code).toBe('access_denied');
    const admin = (await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice })).cookie;
    // The policy decision point refuses it (password-is-its-subjects-own), so the check says the same.
    const byAdmin = await send(passwordUrl('bob'), { method: 'PUT', cookie: admin, json: { oldPassword: 'x', newPassword: 'Another-secret-77' } });
    expect([byAdmin.status, byAdmin.json?.code, byAdmin.headers.get('x-svc-decision')]).toEqual([401, 'access_denied', 'DENY']);
    const asked = await send(`${passwordUrl('bob')}?isAllowed=UPDATE`, { cookie: admin });
    expect([asked.status, asked.json?.decision, asked.json?.reason]).toEqual([401, 'DENY', 'password-is-its-subjects-own']);
    const anonymous = await send(passwordUrl('bob'), { method: 'PUT', json: { oldPassword: 'x', newPassword: 'Another-secret-77' } });
    expect(anonymous.status).toBe(401);
  });

  it('only an administrator lifts a lockout', async () => {
    const bob = (await login(base, { clientid: 'svc-web', user: 'bob', password: 'Brand-new-secret-42' })).cookie;
    expect((await send(`${base}/resources/contexts/employees/subjects/alice/lockout`, { method: 'DELETE', cookie: bob })).status).toBe(401);
    const admin = (await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice })).cookie;
    expect((await send(`${base}/resources/contexts/employees/subjects/nobody/lockout`, { method: 'DELETE', cookie: admin })).status).toBe(404);
  });

  it('a hash with old parameters is upgraded at the next successful login', async () => {
    const old = await new PasswordHasher({ argon2: { memoryCost: 2048, timeCost: 1, parallelism: 1 }, precomputeDummy: false }).hash(users.alice);
    await server.core.subjects.setPasswordHash('employees', 'alice', old);
    expect(await storedHash(server, 'alice')).toMatch(/^\$argon2id\$v=19\$m=2048,t=1,p=1\$/);
    expect((await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice })).status).toBe(200);
    expect(await storedHash(server, 'alice')).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect((await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice })).status).toBe(200);
  });
});

describe('with the real default hashing cost (argon2id m=19 MiB, t=2, p=1)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ hash: { argon2: { memoryCost: 19456, timeCost: 2, parallelism: 1 } } });
  }, 60_000);
  afterAll(() => server.stop());

  it('stores OWASP-strength hashes, logs in, and spends one computation per password authenticator on a failure', async () => {
    expect(await storedHash(server, 'bob')).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(sessionOf(await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob }))).toMatchObject({ type: 'USER' });
    for (const user of ['bob', 'nobody']) {
      const before = server.hasher.stats.started;
      expect((await login(server.baseUrl, { clientid: 'svc-web', user, password: 'wrong-password' })).status).toBe(401);
      expect(server.hasher.stats.started - before).toBe(3);
    }
  });
});

describe('hash computations per login (cheap test hashing)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await server.core.subjects.create('customers', 'carol', { mail: 'carol@example.com', password: 'Carol-pass-123' }, 'admin');
    // The same uniqueId in the second context, with another password: authenticators are still tried in order.
    await server.core.subjects.create('customers', 'alice', { mail: 'alice@customers.example', password: 'Other-alice-pass-9' }, 'admin');
  });
  afterAll(() => server.stop());

  /** One login through svc-web (employees, customers, system), with the computations it caused. */
  const attempt = async (user: string, password: string) => {
    const before = server.hasher.stats.started;
    const sent = await login(server.baseUrl, { clientid: 'svc-web', user, password });
    return { status: sent.status, session: sent.status === 200 ? sessionOf(sent) : undefined, hashes: server.hasher.stats.started - before };
  };

  it('a successful login costs one computation, whichever password authenticator knows the user', async () => {
    expect(await attempt('bob', users.bob)).toMatchObject({ status: 200, hashes: 1 });
    expect(await attempt('carol', 'Carol-pass-123')).toMatchObject({ status: 200, session: { principal: { contextId: 'customers', uniqueId: 'carol' } }, hashes: 1 });
    expect(await attempt('svcadmin', users.svcadmin)).toMatchObject({ status: 200, session: { type: 'SYSTEM' }, hashes: 1 });
  });

  it('every failure still costs one computation per password authenticator', async () => {
    for (const [user, password] of [['bob', 'wrong-password'], ['carol', 'wrong-password'], ['svcadmin', 'wrong-password'], ['nobody', 'wrong-password'], ['alice', 'wrong-password']]) {
      expect(await attempt(user, password)).toMatchObject({ status: 401, hashes: 3 });
    }
  });

  it('a name two contexts know is checked in each, in order: the first match wins', async () => {
    expect(await attempt('alice', users.alice)).toMatchObject({ status: 200, session: { principal: { contextId: 'employees' } }, hashes: 1 });
    expect(await attempt('alice', 'Other-alice-pass-9')).toMatchObject({ status: 200, session: { principal: { contextId: 'customers' } }, hashes: 2 });
  });
});

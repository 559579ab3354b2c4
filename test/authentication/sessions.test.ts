import { startTestServer, withoutAnonymousAccess, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send, sessionOf } from '../helpers/http';
import { login } from '../helpers/login';

const { users } = TEST_CREDENTIALS;
const MINUTE = 60_000;

/** The seed's 3.2 session transitions, one test per row, against the demo-shaped configuration. */
describe('seed 3.2 transitions with anonymous configured', () => {
  let server: TestServer;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer();
    base = server.baseUrl;
  });
  afterAll(() => server.stop());

  it('no session + a request without cookie → an ANON session of the default client, cookie set', async () => {
    const sent = await send(`${base}/resources/session`);
    expect(sent.status).toBe(200);
    expect(sessionOf(sent)).toMatchObject({ type: 'ANON', clientId: '', principal: null, level: 0 });
    expect(sent.cookie).toBeTruthy();
  });

  it('no or invalid session + POST /login with credentials → a new session of the authenticator type, cookie set', async () => {
    for (const cookie of [undefined, 'not-a-session', 'B'.repeat(43)]) {
      const sent = await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob }, { cookie });
      expect(sessionOf(sent)).toMatchObject({ type: 'USER', principal: { uniqueId: 'bob' } });
      expect(sent.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });

  it('no or invalid session + a request naming no client → the default client makes a new session', async () => {
    const sent = await send(`${base}/resources/session`, { cookie: 'C'.repeat(43) });
    expect(sessionOf(sent)).toMatchObject({ type: 'ANON', clientId: '' });
    expect(sent.cookie).toMatch(/^s1\./);
    const posted = await login(base, {}, { cookie: 'C'.repeat(43) });
    expect(sessionOf(posted)).toMatchObject({ type: 'ANON', clientId: '' });
  });

  it('any valid session + POST /logout → invalidated; an anonymous session follows', async () => {
    const user = await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice });
    const out = await send(`${base}/logout`, { method: 'POST', cookie: user.cookie });
    expect(out.status).toBe(204);
    expect(sessionOf(await send(`${base}/resources/session`, { cookie: out.cookie }))).toMatchObject({ type: 'ANON' });
    const old = await send(`${base}/resources/session`, { cookie: user.cookie });
    expect(sessionOf(old)).toMatchObject({ type: 'ANON' });
  });
});

describe('seed 3.2 transitions without anonymous access', () => {
  let server: TestServer;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer({
      configure: withoutAnonymousAccess,
    });
    base = server.baseUrl;
  });
  afterAll(() => server.stop());

  it('no session + a registration request (not enforced) → an INTERNAL session', async () => {
    const sent = await send(`${base}/resources/contexts/customers/subjects`, {
      json: { subject: { uniqueId: 'erin', attributes: { mail: 'erin@example.org', password: 'Erin-pass-2468' } } },
    });
    expect(sent.status).toBe(201);
    expect(sent.cookie).toMatch(/^s1\./);
  });

  it('an INTERNAL session serves the not-enforced URIs alone: elsewhere it is no session, never shown, its cookie kept', async () => {
    const started = await send(`${base}/resources/contexts/employees/subjects/bob/password/forgot`);
    expect(started.status).toBe(200);
    const internal = started.cookie!;
    expect(internal).toMatch(/^s1\./);
    for (const path of ['/resources/session', '/resources/sessioninfo', '/resources/contexts/employees/subjects/bob', '/resources/contexts']) {
      const refused = await send(`${base}${path}`, { cookie: internal });
      expect({ path, status: refused.status, code: refused.json?.code, cookie: refused.cookie }).toEqual({ path, status: 401, code: 'authentication_required', cookie: undefined });
      expect(refused.text).not.toContain('INTERNAL');
    }
    // The flow goes on in the same session.
    expect((await send(`${base}/resources/contexts/employees/subjects/bob/password/forgot`, { cookie: internal })).status).toBe(200);
  });

  it('no valid session + a protected REST resource → 401 with the required authentication information', async () => {
    const sent = await send(`${base}/resources/contexts/employees/subjects/bob`, { cookie: 'D'.repeat(43) });
    expect(sent.status).toBe(401);
    expect(sent.headers.get('www-authenticate')).toBe('SvcSession realm="svc", login="/svc/login"');
    expect(sent.json).toMatchObject({ code: 'authentication_required', login: '/svc/login', parameters: ['clientid', 'clientcred', 'user', 'password'] });
  });

  it('no valid session + a protected page → 302 to the login page with goto', async () => {
    const sent = await send(`${base}/resources/contexts/employees/subjects/bob`, { headers: { accept: 'text/html' } });
    expect(sent.status).toBe(302);
    expect(sent.headers.get('location')).toBe(`/svc/login?goto=${encodeURIComponent('/svc/resources/contexts/employees/subjects/bob')}`);
  });

  it('logout without anonymous clears the cookie', async () => {
    const user = await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob });
    const out = await send(`${base}/logout`, { method: 'POST', cookie: user.cookie });
    expect(out.status).toBe(204);
    expect(out.cookie).toBe('');
    expect(out.headers.getSetCookie().join()).toContain('Max-Age=0');
    expect((await send(`${base}/resources/session`, { cookie: user.cookie })).status).toBe(401);
  });
});

describe('idle and absolute expiry (injected clock, no sleeping)', () => {
  let clock = Date.UTC(2026, 5, 1);
  let server: TestServer;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer({ now: () => clock });
    base = server.baseUrl;
  });
  afterAll(() => server.stop());

  const who = async (cookie: string | undefined) => sessionOf(await send(`${base}/resources/session`, { cookie }));

  it('a session unused for the idle timeout (30 min) ends', async () => {
    const { cookie } = await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob });
    clock += 29 * MINUTE;
    expect(await who(cookie)).toMatchObject({ type: 'USER' });
    clock += 29 * MINUTE;
    expect(await who(cookie)).toMatchObject({ type: 'USER' });
    clock += 30 * MINUTE;
    const after = await send(`${base}/resources/session`, { cookie });
    expect(sessionOf(after)).toMatchObject({ type: 'ANON' });
  });

  it('a busy session still ends at the absolute timeout (12 h)', async () => {
    const { cookie } = await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice });
    for (let minutes = 0; minutes < 12 * 60 - 20; minutes += 20) {
      clock += 20 * MINUTE;
      expect(await who(cookie)).toMatchObject({ type: 'USER' });
    }
    clock += 20 * MINUTE;
    expect(await who(cookie)).toMatchObject({ type: 'ANON' });
  });

  it('a refused request after expiry says session_expired', async () => {
    const { cookie } = await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob });
    clock += 31 * MINUTE;
    const sent = await send(`${base}/resources/contexts/employees/subjects/bob`, { cookie });
    expect(sent.status).toBe(401);
    expect(sent.json?.code).toBe('session_expired');
    expect(sent.headers.get('www-authenticate')).toContain('error="session_expired"');
  });
});

import { ClientSealer } from '../../client/src/clientcred/sealer';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send, sessionOf } from '../helpers/http';
import { login, sealedParams } from '../helpers/login';

const { users, clients } = TEST_CREDENTIALS;
let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  base = server.baseUrl;
});
afterAll(() => server.stop());

describe('the demo clients and users log in as documented', () => {
  it.each([
    ['alice', users.alice, 'employees', 'alice'],
    ['ALICE', users.alice, 'employees', 'alice'],
    ['Alice@Example.com', users.alice, 'employees', 'alice'],
    ['bob@example.com', users.bob, 'employees', 'bob'],
  ])('svc-web: %s gets a USER session at level 2', async (user, password, contextId, uniqueId) => {
    const sent = await login(base, { clientid: 'svc-web', user, password });
    expect(sent.status).toBe(200);
    expect(sessionOf(sent)).toMatchObject({ type: 'USER', clientId: 'svc-web', principal: { uniqueId, contextId }, level: 2 });
    expect(sent.headers.getSetCookie().join()).toMatch(/SVCSESSIONID=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax/);
    const again = await send(`${base}/resources/session`, { cookie: sent.cookie });
    expect(sessionOf(again)).toMatchObject({ type: 'USER', principal: { uniqueId } });
  });

  it('svc-web: the system superuser gets a SYSTEM session', async () => {
    const sent = await login(base, { clientid: 'svc-web', user: 'svcadmin', password: users.svcadmin });
    expect(sent.status).toBe(200);
    expect(sessionOf(sent)).toMatchObject({ type: 'SYSTEM', principal: { uniqueId: 'svcadmin' }, level: 2 });
  });

  it('svc-web: a customer logs in through the second authenticator', async () => {
    await server.core.subjects.create('customers', 'carol', { mail: 'carol@example.org', password: 'Carol-pass-77' }, 'admin');
    const sent = await login(base, { clientid: 'svc-web', user: 'carol@example.org', password: 'Carol-pass-77' });
    expect(sessionOf(sent)).toMatchObject({ type: 'USER', principal: { uniqueId: 'carol', contextId: 'customers' } });
  });

  it('svc-web without credentials falls through to Anonymous (last)', async () => {
    const sent = await login(base, { clientid: 'svc-web' });
    expect(sessionOf(sent)).toMatchObject({ type: 'ANON', clientId: 'svc-web', principal: null, level: 0 });
  });

  it('no clientid: the global default client (anon) gives an ANON session without a clientId', async () => {
    const sent = await login(base, {});
    expect(sessionOf(sent)).toMatchObject({ type: 'ANON', clientId: '', principal: null });
  });

  it('svc-api seals every parameter', async () => {
    const sealer = new ClientSealer('svc-api', clients['svc-api']);
    const sent = await login(base, sealedParams(sealer, { user: 'bob', password: users.bob }));
    expect(sessionOf(sent)).toMatchObject({ type: 'USER', clientId: 'svc-api', principal: { uniqueId: 'bob' }, level: 2 });
  });

  it('portal-gateway asserts a principal as contextId/uniqueId (level 1), and has no Anonymous', async () => {
    const sealer = new ClientSealer('portal-gateway', clients['portal-gateway']);
    const user = await login(base, sealedParams(sealer, { user: 'employees/alice' }));
    expect(sessionOf(user)).toMatchObject({ type: 'USER', clientId: 'portal-gateway', principal: { uniqueId: 'alice', contextId: 'employees' }, level: 1 });
    for (const params of [{}, { user: 'alice' }, { user: 'employees/nobody' }]) {
      const refused = await login(base, sealedParams(sealer, params));
      expect(refused.status).toBe(401);
      expect(refused.json?.code).toBe('login_failed');
    }
  });

  it('a JSON body works like a form, and Accept: application/xml gives XML', async () => {
    const sent = await send(`${base}/login`, { json: { clientid: 'svc-web', user: 'bob', password: users.bob }, headers: { accept: 'application/xml' } });
    expect(sent.status).toBe(200);
    expect(sent.headers.get('content-type')).toMatch(/application\/xml/);
    expect(sent.text).toMatch(/<session>.*<type>USER<\/type>.*<\/session>/s);
  });
});

describe('login failures', () => {
  it('a wrong password is 401 login_failed as a problem', async () => {
    const sent = await login(base, { clientid: 'svc-web', user: 'alice', password: 'wrong-password' });
    expect(sent.status).toBe(401);
    expect(sent.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(sent.json).toMatchObject({ code: 'login_failed', status: 401 });
    // Only the filter's throwaway anonymous value (stateless, `s1.`), never a stored session.
    expect(sent.cookie === undefined || sent.cookie.startsWith('s1.')).toBe(true);
  });

  it('an unknown clientid is invalid_client', async () => {
    const sent = await login(base, { clientid: 'nope', user: 'alice', password: users.alice });
    expect(sent.json?.code).toBe('invalid_client');
  });

  it('a browser form post that fails is redirected to the login-error page', async () => {
    const sent = await login(base, { clientid: 'svc-web', user: 'alice', password: 'bad' }, { headers: { accept: 'text/html' } });
    expect(sent.status).toBe(302);
    expect(sent.headers.get('location')).toBe('/svc/anon/login-error');
    const page = await send(`${base}/anon/login-error`, { headers: { accept: 'text/html' } });
    expect(page.text).toContain('The login failed');
  });

  it.each([
    ['a repeated parameter', 'clientid=svc-web&user=alice&user=bob&password=x'],
    ['an oversized parameter', `clientid=svc-web&user=alice&password=${'x'.repeat(20_000)}`],
  ])('%s is 400 before any hashing', async (_what, form) => {
    const before = server.hasher.stats.started;
    const sent = await send(`${base}/login`, { form });
    expect(sent.status).toBe(400);
    expect(server.hasher.stats.started).toBe(before);
  });

  it('credentials in the URL are refused', async () => {
    const sent = await send(`${base}/login?user=alice&password=${encodeURIComponent(users.alice)}`, { form: { clientid: 'svc-web' } });
    expect(sent.status).toBe(400);
  });

  it('a body over the login limit is 413', async () => {
    const sent = await send(`${base}/login`, { form: `clientid=svc-web&x=${'y'.repeat(70_000)}` });
    expect(sent.status).toBe(413);
  });
});

describe('redirects and pages', () => {
  it('goto under the context root is followed; a foreign origin is ignored', async () => {
    const ok = await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob, goto: '/svc/resources/session?x=1' });
    expect(ok.status).toBe(302);
    expect(ok.headers.get('location')).toBe('/svc/resources/session?x=1');
    expect(ok.cookie).toBeTruthy();
    for (const goto of ['https://evil.example/', '//evil.example/svc', '/\\evil.example', '/other/app', 'javascript:alert(1)', '/svc/../other']) {
      const sent = await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob, goto });
      expect(sent.headers.get('location')).toBe('/svc/');
    }
  });

  it('Accept: text/html gets 302 to {base}/ after success', async () => {
    const sent = await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob }, { headers: { accept: 'text/html' } });
    expect(sent.status).toBe(302);
    expect(sent.headers.get('location')).toBe('/svc/');
  });

  it('GET /login serves an escaped form naming svc-web and never takes credentials', async () => {
    const before = server.hasher.stats.started;
    const sent = await send(`${base}/login?goto=${encodeURIComponent('/svc/x?a="><script>&b=1')}&user=alice&password=x`, { headers: { accept: 'text/html' } });
    expect(sent.status).toBe(200);
    expect(sent.text).toContain('name="clientid" value="svc-web"');
    expect(sent.text).not.toContain('<script>');
    expect(sent.text).toContain('value="/svc/x?a=%22%3E%3Cscript%3E&#38;b=1"');
    expect(sent.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(server.hasher.stats.started).toBe(before);
    expect(sent.cookie === undefined || !/^[A-Za-z0-9_-]{43}$/.test(sent.cookie)).toBe(true);
  });

  it('a cross-site form post is refused before any credential is checked', async () => {
    const before = server.hasher.stats.started;
    const foreign = await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob }, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    const referer = await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob }, { headers: { referer: 'https://evil.example/page' } });
    expect(referer.status).toBe(403);
    expect(server.hasher.stats.started).toBe(before);
    const own = await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob }, { headers: { origin: server.url } });
    expect(own.status).toBe(200);
  });
});

describe('sessions around login and logout', () => {
  it('login ends the session the request carried (fixation)', async () => {
    const first = await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice });
    const second = await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob }, { cookie: first.cookie });
    expect(second.cookie).not.toBe(first.cookie);
    const dead = await send(`${base}/resources/session`, { cookie: first.cookie });
    expect(sessionOf(dead)).toMatchObject({ type: 'ANON' });
    expect(dead.cookie).not.toBe(first.cookie);
    const live = await send(`${base}/resources/session`, { cookie: second.cookie });
    expect(sessionOf(live)).toMatchObject({ type: 'USER', principal: { uniqueId: 'bob' } });
  });

  it('a cookie the server never issued is not adopted', async () => {
    const forged = 'A'.repeat(43);
    const sent = await send(`${base}/resources/session`, { cookie: forged });
    expect(sessionOf(sent)).toMatchObject({ type: 'ANON' });
    expect(sent.cookie).not.toBe(forged);
    const afterLogin = await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob }, { cookie: forged });
    expect(afterLogin.cookie).not.toBe(forged);
  });

  it('logout ends the session and hands out a new anonymous one', async () => {
    const sent = await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice });
    const out = await send(`${base}/logout`, { method: 'POST', cookie: sent.cookie });
    expect(out.status).toBe(204);
    expect(out.cookie).toMatch(/^s1\./);
    const anon = await send(`${base}/resources/session`, { cookie: out.cookie });
    expect(sessionOf(anon)).toMatchObject({ type: 'ANON', clientId: '' });
    const old = await send(`${base}/resources/session`, { cookie: sent.cookie });
    expect(sessionOf(old)).toMatchObject({ type: 'ANON' });
    expect(server.hasher.stats.started).toBeGreaterThan(0);
  });

  it('logout honours a checked goto; GET /logout only shows a form that POSTs', async () => {
    const sent = await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice });
    const page = await send(`${base}/logout`, { cookie: sent.cookie, headers: { accept: 'text/html' } });
    expect(page.text).toContain('method="post"');
    const still = await send(`${base}/resources/session`, { cookie: sent.cookie });
    expect(sessionOf(still)).toMatchObject({ type: 'USER' });
    const out = await send(`${base}/logout`, { cookie: sent.cookie, form: { goto: '/svc/login' } });
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('/svc/login');
    const foreign = await send(`${base}/logout`, { form: { goto: 'https://evil.example/' } });
    expect(foreign.status).toBe(204);
  });
});

describe('metrics', () => {
  it('counts logins by outcome and reason', async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(/svc_logins_total\{outcome="success",reason="employees-password"\} \d+/);
    expect(text).toMatch(/svc_logins_total\{outcome="failure",reason="rejected"\} \d+/);
  });
});

/**
 * `{base}/` (SPEC section 7's home page), `goto` as a request parameter of login and logout (from the
 * query or the form body, SPEC section 4), and WWW-Authenticate on every 401, page or problem.
 */
import { send } from '../helpers/http';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { textOf, Visitor } from './visitor';

let server: TestServer;
const root = () => new URL(server.baseUrl).pathname;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

test('a visitor gets a page, not a problem: not logged in, the login link and the self-service pages', async () => {
  const page = await new Visitor(server).get('/');
  expect([page.status, page.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^text\/html/)]);
  expect(textOf(page.text)).toContain('You are not logged in.');
  for (const href of ['/login', '/anon/register', '/anon/forgot']) expect(page.text).toContain(`href="${root()}${href}"`);
});

test('a login without goto lands on the home page, which names the user and the session type, with a log-out button', async () => {
  const bob = new Visitor(server);
  const login = await bob.logIn('bob', TEST_CREDENTIALS.users.bob);
  expect(login.headers.get('location')).toBe(`${root()}/`);
  const page = await bob.get('/');
  expect(page.status).toBe(200);
  expect(textOf(page.text)).toMatch(/You are logged in as employees\/bob \(USER session through client svc-web ?\)\./);
  expect(page.text).toMatch(new RegExp(`<form method="post" action="${root()}/logout"><button type="submit">Log out</button>`));
  expect(page.text).not.toContain('/config');
});

test('the configuration link appears only for a session the policies let read the config area', async () => {
  const admin = new Visitor(server);
  await admin.logIn('svcadmin', TEST_CREDENTIALS.users.svcadmin);
  const page = await admin.get('/');
  expect(textOf(page.text)).toContain('SYSTEM session');
  expect(page.text).toContain(`href="${root()}/config"`);
});

test('goto may come in the query of a login or logout POST; outside the root it is ignored; two different ones are 400', async () => {
  const bob = new Visitor(server);
  await bob.get('/');
  const login = await bob.post('/login?goto=%2Fsvc%2Fanon%2Fforgot', { user: 'bob', password: TEST_CREDENTIALS.users.bob, clientid: 'svc-web' });
  expect([login.status, login.headers.get('location')]).toEqual([302, `${root()}/anon/forgot`]);
  const logout = await send(`${server.baseUrl}/logout?goto=${encodeURIComponent(`${root()}/anon/login-error`)}`, { method: 'POST', cookie: bob.cookie, headers: { origin: bob.origin } });
  expect([logout.status, logout.headers.get('location')]).toEqual([302, `${root()}/anon/login-error`]);
  const evil = await send(`${server.baseUrl}/logout?goto=${encodeURIComponent('//evil.example/')}`, { method: 'POST', headers: { origin: bob.origin } });
  expect(evil.status).toBe(204);
  const twice = await send(`${server.baseUrl}/logout?goto=%2Fsvc%2F`, { method: 'POST', form: { goto: `${root()}/login` }, headers: { origin: bob.origin } });
  expect([twice.status, twice.json?.code]).toEqual([400, 'invalid_request']);
});

test('every 401 names a scheme: the login-error page and a failed login', async () => {
  const page = await new Visitor(server).get('/anon/login-error');
  expect(page.status).toBe(401);
  expect(page.headers.get('www-authenticate')).toBe(`SvcSession realm="svc", error="login_failed", login="${root()}/login"`);
  const failed = await send(`${server.baseUrl}/login`, { form: { user: 'bob', password: 'wrong-password', clientid: 'svc-web' }, headers: { accept: 'application/json' } });
  expect([failed.status, failed.json?.code, failed.headers.get('www-authenticate')]).toEqual([401, 'login_failed', 'SvcSession realm="svc", error="login_failed"']);
});

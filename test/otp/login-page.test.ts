/**
 * The core's login page with a second factor (SPEC 15): a browser's right password gets a second
 * page asking for the code, `pending` held in a cookie of its own (never a session); the code posted
 * there logs in at level 3 and lands on `goto`; a wrong code goes to the login-error page; a wrong
 * password goes there as it always did.
 */
import { execFileSync } from 'node:child_process';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { COOKIE, send } from '../helpers/http';
import { login } from '../helpers/login';

const { users } = TEST_CREDENTIALS;
let clock = 1_795_000_020_000;
let server: TestServer;
let secret: string;
const oathtool = () => execFileSync('oathtool', ['--totp', '-b', secret, '--now', `@${Math.floor(clock / 1000)}`], { encoding: 'utf8' }).trim();
const PENDING = 'SVCOTPPENDING';

/** A browser's form post to the login page. */
const browserPost = (form: Record<string, string>, cookies = '') =>
  send(`${server.baseUrl}/login`, { form, headers: { accept: 'text/html', origin: server.url, ...(cookies ? { cookie: cookies } : {}) } });
const setCookie = (headers: Headers, name: string) => headers.getSetCookie().find((c) => c.startsWith(`${name}=`));

beforeAll(async () => {
  server = await startTestServer({ now: () => clock });
  const session = await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob });
  const otp = `${server.baseUrl}/resources/contexts/employees/subjects/bob/otp`;
  secret = (await send(otp, { cookie: session.cookie, json: { password: users.bob } })).json!.secret as string;
  clock += 30_000;
  expect((await send(otp, { method: 'PUT', cookie: session.cookie, json: { code: oathtool() } })).status).toBe(200);
});
afterAll(() => server.stop());

test('the right password shows the code page; the code logs in at level 3 and follows goto', async () => {
  const first = await browserPost({ clientid: 'svc-web', user: 'bob', password: users.bob, goto: '/svc/' });
  expect(first.status).toBe(200);
  expect(first.text).toContain('name="otp"');
  expect(first.text).toContain('autocomplete="one-time-code"');
  const held = setCookie(first.headers, PENDING)!;
  expect(held).toMatch(/^SVCOTPPENDING=p1\.[^;]+; Path=\/svc\/login; HttpOnly; SameSite=Lax; Max-Age=300/);
  expect(setCookie(first.headers, COOKIE)?.startsWith(`${COOKIE}=s1.`) ?? true).toBe(true);
  clock += 30_000;
  const second = await browserPost({ clientid: 'svc-web', otp: oathtool(), goto: '/svc/' }, held.split(';')[0]);
  expect(second.status).toBe(302);
  expect(second.headers.get('location')).toBe('/svc/');
  expect(setCookie(second.headers, PENDING)).toContain('Max-Age=0');
  const session = await send(`${server.baseUrl}/resources/session`, { cookie: second.cookie });
  expect((session.json!.session as { level: number }).level).toBe(3);
});

test('a wrong code, or a wrong password, goes to the login-error page', async () => {
  const first = await browserPost({ clientid: 'svc-web', user: 'bob', password: users.bob });
  const held = setCookie(first.headers, PENDING)!.split(';')[0];
  const wrong = await browserPost({ clientid: 'svc-web', otp: '000000' === oathtool() ? '111111' : '000000' }, held);
  expect(wrong.status).toBe(302);
  expect(wrong.headers.get('location')).toBe('/svc/anon/login-error');
  const password = await browserPost({ clientid: 'svc-web', user: 'bob', password: 'not-his-password' });
  expect(password.headers.get('location')).toBe('/svc/anon/login-error');
});

test('a pending login of a subject disabled since its password step is refused', async () => {
  const pending = (await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob })).json!.pending as string;
  const system = (await login(server.baseUrl, { clientid: 'svc-web', user: 'svcadmin', password: users.svcadmin })).cookie;
  const bob = `${server.baseUrl}/resources/contexts/employees/subjects/bob`;
  expect((await send(bob, { method: 'PUT', cookie: system, json: { subject: { attributes: { disabled: 'true' } } } })).status).toBe(200);
  clock += 30_000;
  const refused = await login(server.baseUrl, { clientid: 'svc-web', pending, otp: oathtool() });
  expect(refused.json!.code).toBe('login_failed');
});

/**
 * `{base}/anon/register` over real HTTP against the real SQLite store: the form, a registration that
 * really creates a subject who can then log in, failures shown in the form, cross-site posts refused.
 */
import { startTestServer, type TestServer } from '../helpers/core-server';
import { fieldNames, fieldValue, textOf, Visitor } from './visitor';

let server: TestServer;
const carol = (overrides: Record<string, string> = {}) => ({
  context: 'customers',
  uniqueId: 'carol',
  'a.mail': 'carol@example.org',
  'a.givenName': 'Carol',
  'a.familyName': 'Cole',
  'a.password': 'Carol-registers-1',
  ...overrides,
});
const stored = (id: string) => server.core.subjects.context('customers').store.get('customers', id);

beforeEach(async () => {
  server = await startTestServer({ configure: (doc) => Object.assign(doc, { global: { 'registration.perAddress': 4 } }) });
});
afterEach(() => server.stop());

test('the form shows the registration attributes of the first context open to registration, with the page headers', async () => {
  const page = await new Visitor(server).get('/anon/register');
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
  expect(page.headers.get('x-frame-options')).toBe('DENY');
  expect(page.headers.get('cache-control')).toBe('no-store');
  expect(fieldNames(page.text)).toEqual(['context', 'uniqueId', 'a.mail', 'a.givenName', 'a.familyName', 'a.password']);
  expect(fieldValue(page.text, 'context')).toBe('customers');
  expect(page.text).toMatch(/type="password" name="a\.password"/);
  expect(page.text).toMatch(/type="email" name="a\.mail"/);
});

test('a context without registration has no form', async () => {
  const page = await new Visitor(server).get('/anon/register?context=employees');
  expect(page.status).toBe(404);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(textOf(page.text)).toContain('context employees is not open to registration');
});

test('registering creates the subject in the store, and the new account logs in', async () => {
  const visitor = new Visitor(server);
  await visitor.get('/anon/register');
  const done = await visitor.post('/anon/register', carol());
  expect(done.status).toBe(201);
  expect(textOf(done.text)).toContain('The account carol was created in customers');

  const subject = await stored('carol');
  expect(subject?.attributes).toMatchObject({ mail: 'carol@example.org', givenName: 'Carol', familyName: 'Cole', roles: ['user'] });
  expect(subject?.attributes.password).toMatch(/^\$argon2id\$/);

  const carolBrowser = new Visitor(server);
  await carolBrowser.logIn('carol@example.org', 'Carol-registers-1');
  expect(await carolBrowser.session()).toMatchObject({ type: 'USER', principal: { uniqueId: 'carol', contextId: 'customers' } });
});

test('a weak password shows the form again with the reason, the other values, and never the password', async () => {
  const failed = await new Visitor(server).post('/anon/register', carol({ 'a.password': 'password123' }));
  expect(failed.status).toBe(400);
  expect(textOf(failed.text)).toContain('password: is too common');
  expect(fieldValue(failed.text, 'a.mail')).toBe('carol@example.org');
  expect(fieldValue(failed.text, 'uniqueId')).toBe('carol');
  expect(failed.text).not.toContain('password123');
  expect(await stored('carol')).toBeUndefined();
});

test('the registration attribute rules, reserved ids and taken names are the domain\'s', async () => {
  const visitor = new Visitor(server);
  const roles = await visitor.post('/anon/register', carol({ 'a.roles': 'admin' }));
  expect(roles.status).toBe(400);
  expect(textOf(roles.text)).toContain('not writable by this caller: roles');
  expect(await stored('carol')).toBeUndefined();

  const reserved = await visitor.post('/anon/register', carol({ uniqueId: 'svcadmin' }));
  expect(reserved.status).toBe(409);
  expect(textOf(reserved.text)).toContain('this id is reserved');

  expect((await visitor.post('/anon/register', carol())).status).toBe(201);
  const taken = await visitor.post('/anon/register', carol({ uniqueId: 'carol2' }));
  expect(taken.status).toBe(409);
  expect(await stored('carol2')).toBeUndefined();
});

test('registration attempts are throttled per address, failed ones too, as over REST', async () => {
  const visitor = new Visitor(server);
  expect((await visitor.post('/anon/register', carol({ uniqueId: 'c1', 'a.mail': 'c1@example.org' }))).status).toBe(201);
  expect((await visitor.post('/anon/register', carol({ uniqueId: 'c1', 'a.mail': 'c1@example.org' }))).status).toBe(409);
  expect((await visitor.post('/anon/register', carol({ uniqueId: 'c2', 'a.password': 'password123' }))).status).toBe(400);
  expect((await visitor.post('/anon/register', carol({ uniqueId: 'c3', 'a.mail': 'c3@example.org' }))).status).toBe(201);
  const throttled = await visitor.post('/anon/register', carol({ uniqueId: 'c4', 'a.mail': 'c4@example.org' }));
  expect(throttled.status).toBe(429);
  expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(textOf(throttled.text)).toContain('too many registrations from this address');
  expect(await stored('c4')).toBeUndefined();
});

test('cross-site posts are refused, by Origin or by Referer', async () => {
  const visitor = new Visitor(server);
  const byOrigin = await visitor.post('/anon/register', carol(), { origin: 'http://evil.example' });
  expect(byOrigin.status).toBe(403);
  expect(byOrigin.headers.get('content-type')).toMatch(/^text\/html/);
  const byReferer = await visitor.post('/anon/register', carol(), { referer: 'http://evil.example/page' });
  expect(byReferer.status).toBe(403);
  expect(await stored('carol')).toBeUndefined();
});

test('the login page links to the self-service pages', async () => {
  const login = await new Visitor(server).get('/login');
  expect(login.text).toContain('href="/svc/anon/register"');
  expect(login.text).toContain('href="/svc/anon/forgot"');
});

import { startTestServer, type TestServer } from '../helpers/core-server';
import { bodyOf } from '../helpers/json';

let server: TestServer;
const register = (context: string, subject: unknown) =>
  fetch(`${server.baseUrl}/resources/contexts/${context}/subjects`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ subject }),
  });
const carol = (overrides: Record<string, unknown> = {}) => ({
  uniqueId: 'carol',
  attributes: { mail: 'carol@example.org', givenName: 'Carol', familyName: 'Cole', password: 'Carol-registers-1', ...overrides },
});

afterEach(() => server.stop());

describe('registration by an anonymous visitor', () => {
  beforeEach(async () => {
    server = await startTestServer({ configure: (doc) => Object.assign(doc, { global: { 'registration.perAddress': 3 } }) });
  });

  test('registers with the registration attributes; roles get the default', async () => {
    const res = await register('customers', carol());
    expect(res.status).toBe(201);
    expect((await bodyOf(res)).subject.attributes).toEqual({ mail: 'carol@example.org', givenName: 'Carol', familyName: 'Cole', roles: ['user'] });
  });

  test.each([
    ['an attribute outside the registration set', 'customers', carol({ roles: ['admin'] }), 400, 'attribute_not_writable'],
    ['a context without registration', 'employees', carol(), 401, 'access_denied'],
    ['a reserved id', 'customers', { ...carol(), uniqueId: 'svcadmin' }, 409, 'conflict'],
    ['a weak password', 'customers', carol({ password: 'password123' }), 400, 'weak_password'],
  ])('refuses %s', async (_name, context, subject, status, code) => {
    const res = await register(context, subject);
    expect(res.status).toBe(status);
    expect((await bodyOf(res)).code).toBe(code);
    expect(await server.core.subjects.context(context).store.get(context, (subject as { uniqueId: string }).uniqueId)).toBeUndefined();
  });

  test('a taken name is 409, and registration attempts, failed ones too, are throttled per address', async () => {
    expect((await register('customers', carol())).status).toBe(201);
    expect((await register('customers', { ...carol(), uniqueId: 'carol2' })).status).toBe(409);
    expect((await register('customers', { ...carol({ mail: 'c3@example.org' }), uniqueId: 'c3' })).status).toBe(201);
    const throttled = await register('customers', { ...carol({ mail: 'c5@example.org' }), uniqueId: 'c5' });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  test('clashing registrations count: past the limit they are 429 and no longer say what clashed', async () => {
    expect((await register('customers', carol())).status).toBe(201);
    const answers = [];
    for (let i = 0; i < 15; i++) answers.push(await register('customers', { ...carol(), uniqueId: `carol${i}` }));
    expect(answers.map((a) => a.status)).toEqual([409, 409, ...Array(13).fill(429)]);
    expect((await bodyOf(answers[14])).detail).not.toMatch(/mail/);
    await expect(server.core.registrations.perAddress.attempts('127.0.0.1')).resolves.toBe(16);
  });

  test('concurrent registrations cannot pass the throttle: each takes its slot before anything is checked', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => register('customers', { ...carol({ mail: `r${i}@example.org` }), uniqueId: `r${i}` })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(17);
    expect((await server.core.subjects.search('customers', { offset: 0, quantity: 100 })).total).toBe(3);
    await expect(server.core.registrations.perAddress.attempts('127.0.0.1')).resolves.toBe(20);
  });
});

test('with anonymous off, registration runs in an INTERNAL session (seed 3.2)', async () => {
  server = await startTestServer({
    configure: (doc) => {
      const clients = doc.clients as Array<{ id: string; authenticators: string[] }>;
      clients.find((c) => c.id === 'anon')!.authenticators = ['system'];
    },
  });
  const session = await fetch(`${server.baseUrl}/resources/session`, { headers: { accept: 'application/json' } });
  expect(session.status).toBe(401);
  expect((await bodyOf(session)).code).toBe('authentication_required');
  const res = await register('customers', carol());
  expect(res.status).toBe(201);
  expect(res.headers.get('set-cookie')).toMatch(/^SVCSESSIONID=/);
});

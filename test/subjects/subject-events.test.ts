/**
 * Subject events (SPEC 10.4) through the core: what happens to an account (logins, a lock and its
 * lifting, attribute writes by name, never their values) is kept in the subject store and read at
 * GET …/subjects/{s}/events, newest first, by admins and by the subject itself; the retention job
 * keeps `events.maxPerSubject` per subject and `events.retentionDays`; a deleted subject's events go with it.
 */
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send } from '../helpers/http';
import { login } from '../helpers/login';

const { users } = TEST_CREDENTIALS;
const DAY = 24 * 60 * 60 * 1000;
let clock = Date.UTC(2026, 0, 1);
let server: TestServer;
let events: string;
const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });

beforeAll(async () => {
  server = await startTestServer({
    now: () => clock,
    configure: (doc) => {
      (doc.server as Record<string, unknown>).trustProxy = ['127.0.0.1/32', '::1/128'];
      doc.global = { ...(doc.global as Record<string, unknown> | undefined), 'events.maxPerSubject': 4, 'events.retentionDays': 30 };
    },
  });
  events = `${server.baseUrl}/resources/contexts/employees/subjects`;
});
afterAll(() => server.stop());

type Listed = { events: Array<{ at: string; type: string; client: string | null; principal: string | null; peer: string | null; detail: string }>; total: number };

test('an admin reads what happened to bob, newest first: a failed and a good login, a lock lifted, an edit by attribute name', async () => {
  const admin = (await login(server.baseUrl, { clientid: 'svc-web', user: 'alice', password: users.alice }, from('10.9.9.9'))).cookie!;
  expect((await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: 'wrong-password' }, from('10.1.1.1'))).status).toBe(401);
  clock += 1000;
  expect((await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob }, from('10.1.1.2'))).status).toBe(200);
  clock += 1000;
  const asAdmin = { cookie: admin, ...from('10.9.9.9') };
  expect((await send(`${events}/bob`, { ...asAdmin, method: 'PUT', json: { subject: { attributes: { givenName: 'Robert-secret-value' } } } })).status).toBe(200);
  clock += 1000;
  expect((await send(`${events}/bob/lockout`, { ...asAdmin, method: 'DELETE' })).status).toBe(204);

  const read = await send(`${events}/bob/events`, asAdmin);
  expect(read.status).toBe(200);
  const body = read.json as Listed;
  expect(body.total).toBe(4);
  expect(body.events.map((e) => [e.type, e.detail])).toEqual([
    ['lockout', 'success lifted'],
    ['subject_write', 'success update: givenName'],
    ['login', expect.stringMatching(/^success /)],
    ['login', expect.stringMatching(/^failure /)],
  ]);
  expect(body.events[0]).toMatchObject({ at: new Date(clock).toISOString(), client: 'svc-web', principal: 'employees/alice', peer: '10.9.9.9' });
  expect(body.events[3]).toMatchObject({ peer: '10.1.1.1', client: 'svc-web' });
  expect(read.text).not.toContain('Robert-secret-value');
  expect(read.text).not.toMatch(/wrong-password/);
  const page = (await send(`${events}/bob/events?offset=1&quantity=2`, asAdmin)).json as Listed;
  expect(page.events.map((e) => e.type)).toEqual(['subject_write', 'login']);
  expect((await send(`${events}/nobody/events`, asAdmin)).status).toBe(404);
  expect((await send(`${events}/bob/events?isAllowed=READ`, asAdmin)).json).toMatchObject({ decision: 'ALLOW', resource: 'contexts/employees/subjects/bob/events' });
});

test('bob reads his own events, not alice\'s', async () => {
  const bob = (await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob }, from('10.1.1.3'))).cookie!;
  const own = await send(`${events}/bob/events`, { cookie: bob, ...from('10.1.1.3') });
  expect(own.status).toBe(200);
  expect((own.json as Listed).events[0]).toMatchObject({ type: 'login', peer: '10.1.1.3' });
  expect((await send(`${events}/alice/events`, { cookie: bob, ...from('10.1.1.3') })).status).toBe(401);
});

test('the retention job keeps the newest events.maxPerSubject of a subject and drops those older than events.retentionDays', async () => {
  const admin = (await login(server.baseUrl, { clientid: 'svc-web', user: 'alice', password: users.alice }, from('10.9.9.9'))).cookie!;
  const asAdmin = { cookie: admin, ...from('10.9.9.9') };
  const before = (await send(`${events}/bob/events?quantity=100`, asAdmin)).json as Listed;
  expect(before.total).toBeGreaterThan(4);
  await server.core.subjectEvents.prune();
  const kept = (await send(`${events}/bob/events?quantity=100`, asAdmin)).json as Listed;
  expect(kept.events).toEqual(before.events.slice(0, 4));
  clock += 31 * DAY;
  await server.core.subjectEvents.prune();
  expect(((await send(`${events}/bob/events`, { cookie: (await login(server.baseUrl, { clientid: 'svc-web', user: 'alice', password: users.alice }, from('10.9.9.9'))).cookie!, ...from('10.9.9.9') })).json as Listed).total).toBe(0);
});

test('a deleted subject\'s events go with it: a new subject of the same id reads none of them', async () => {
  const asAdmin = { cookie: (await login(server.baseUrl, { clientid: 'svc-web', user: 'alice', password: users.alice }, from('10.9.9.9'))).cookie!, ...from('10.9.9.9') };
  const dora = { subject: { uniqueId: 'dora', attributes: { mail: 'dora@example.com', givenName: 'Dora', familyName: 'Dale', password: 'Dora-is-here-1' } } };
  expect((await send(events, { ...asAdmin, method: 'POST', json: dora })).status).toBe(201);
  expect((await login(server.baseUrl, { clientid: 'svc-web', user: 'dora', password: 'not-doras-password' }, from('10.2.2.2'))).status).toBe(401);
  expect(((await send(`${events}/dora/events`, asAdmin)).json as Listed).total).toBe(2);
  expect((await send(`${events}/dora`, { ...asAdmin, method: 'DELETE' })).status).toBe(204);
  expect((await send(`${events}/dora/events`, asAdmin)).status).toBe(404);
  expect((await send(events, { ...asAdmin, method: 'POST', json: dora })).status).toBe(201);
  const fresh = (await send(`${events}/dora/events`, asAdmin)).json as Listed;
  expect(fresh.events.map((e) => [e.type, e.detail])).toEqual([['subject_write', 'success create']]);
});

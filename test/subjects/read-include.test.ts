/**
 * READ's `include` (issue 28: User Admin's view of one subject is its READ and one batch of
 * decisions): `lockout` and `events` carried beside the subject exactly as GET …/lockout and
 * GET …/events?offset=0&quantity=20 answer, each only when the caller may READ that target, decided
 * as SEARCH's include=status decides (quietly: no access_denied line for a part left out); absent
 * otherwise, never an error. In XML the answer has one root, <read>. A name that is no part is 400.
 */
import { parseXml } from '../../common/src/wire/xml';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { logLines, type LogLines } from '../helpers/log-lines';
import { send, type Sent } from '../helpers/http';
import { login } from '../helpers/login';

const { users } = TEST_CREDENTIALS;
let server: TestServer;
let logs: LogLines;
let subjects: string;
let alice: { cookie: string };
let bob: { cookie: string };

beforeAll(async () => {
  logs = logLines();
  server = await startTestServer({ logger: logs.logger });
  subjects = `${server.baseUrl}/resources/contexts/employees/subjects`;
  alice = { cookie: (await login(server.baseUrl, { clientid: 'svc-web', user: 'alice', password: users.alice })).cookie! };
  bob = { cookie: (await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob })).cookie! };
  // More failures than the page of 20 events holds; the first five lock bob's (subject, address) pair.
  for (let i = 0; i < 22; i++) expect((await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: `wrong-${i}` })).status).toBe(401);
});
afterAll(() => server.stop());

const deniedLines = () => logs.audits().filter((line) => line.event === 'access_denied').length;

test('an admin reads bob with his lock and his newest 20 events, each as its own route answers it, in one request', async () => {
  const read = await send(`${subjects}/bob?include=lockout,events`, alice);
  expect(read.status).toBe(200);
  expect(read.headers.get('cache-control')).toBe('no-store');
  const plain = await send(`${subjects}/bob`, alice);
  expect(read.headers.get('etag')).toBe(plain.headers.get('etag'));
  expect(Object.keys(read.json!)).toEqual(['subject', 'lockout', 'events']);
  expect(read.json!.subject).toEqual(plain.json!.subject);
  expect(read.json!.lockout).toEqual((await send(`${subjects}/bob/lockout`, alice)).json);
  expect(read.json!.lockout).toMatchObject({ locked: true, failures: 22 });
  const events = read.json!.events as { events: unknown[]; total: number };
  expect(events).toEqual((await send(`${subjects}/bob/events?offset=0&quantity=20`, alice)).json);
  expect(events.events).toHaveLength(20);
  expect(events.total).toBeGreaterThan(20);
  // With the others, in any order: the members keep one order.
  const all = await send(`${subjects}/bob?include=events,otp,lockout`, alice);
  expect(Object.keys(all.json!)).toEqual(['subject', 'otp', 'lockout', 'events']);
});

test('bob reading himself gets his events but not his lock (the demo policies), with no refusal logged', async () => {
  const before = deniedLines();
  expect((await send(`${subjects}/bob/lockout`, bob)).status).toBe(401);
  // The route's own refusal is logged (and counted) ...
  const denied = deniedLines();
  expect(denied).toBe(before + 1);
  // ... the same decision leaving the part out of a READ is not.
  const read = await send(`${subjects}/bob?include=lockout,events`, bob);
  expect(read.status).toBe(200);
  expect(Object.keys(read.json!)).toEqual(['subject', 'events']);
  expect(read.json!.events).toEqual((await send(`${subjects}/bob/events?offset=0&quantity=20`, bob)).json);
  expect(read.text).not.toContain('"failures"');
  expect(deniedLines()).toBe(denied);
  // Only the lock asked: the subject alone, as a READ without include (never an error, never a leak).
  const lockOnly = await send(`${subjects}/bob?include=lockout`, bob);
  expect(lockOnly.status).toBe(200);
  expect(lockOnly.json).toEqual((await send(`${subjects}/bob`, bob)).json);
  expect(deniedLines()).toBe(denied);
});

test('in XML the parts sit beside the subject under one root, <read>; without include the root stays <subject>', async () => {
  const xml = (sent: Sent) => parseXml(sent.text);
  const asXml = { ...alice, headers: { accept: 'application/xml' } };
  const read = await send(`${subjects}/bob?include=otp,lockout,events`, asXml);
  expect(read.status).toBe(200);
  expect(read.headers.get('content-type')).toMatch(/^application\/xml/);
  const doc = xml(read).read as Record<string, Record<string, unknown>>;
  expect(Object.keys(doc)).toEqual(['subject', 'otp', 'lockout', 'events']);
  expect(doc.subject.uniqueId).toBe('bob');
  expect(doc.lockout).toEqual((xml(await send(`${subjects}/bob/lockout`, asXml)).lockout));
  expect(doc.events).toEqual(xml(await send(`${subjects}/bob/events?offset=0&quantity=20`, asXml)).subjectEvents);
  expect(Object.keys(xml(await send(`${subjects}/bob`, asXml)))).toEqual(['subject']);
  // Asked for, allowed nothing: still the one root.
  expect(Object.keys(xml(await send(`${subjects}/bob?include=lockout`, { ...bob, headers: { accept: 'application/xml' } })))).toEqual(['read']);
});

test('a name that is no part is 400 naming include, as before, whatever else was asked', async () => {
  for (const include of ['roles', 'lockout,status', 'events,', '', 'Lockout']) {
    const refused = await send(`${subjects}/bob?include=${encodeURIComponent(include)}`, alice);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'invalid_request', errors: [{ path: 'include' }] });
  }
});

import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send, sessionOf, type Sent } from '../helpers/http';
import { login } from '../helpers/login';

const { users } = TEST_CREDENTIALS;
const MINUTE = 60_000;
let clock = Date.UTC(2026, 0, 1);
let server: TestServer;
let base: string;
let admin: string | undefined;

beforeAll(async () => {
  // Loopback is the trusted proxy, so X-Forwarded-For gives each request the address a test wants.
  server = await startTestServer({
    now: () => clock,
    configure: (doc) => {
      (doc.server as Record<string, unknown>).trustProxy = ['127.0.0.1/32', '::1/128'];
    },
  });
  base = server.baseUrl;
  await server.core.subjects.create('employees', 'dave', { mail: 'dave@example.com', password: 'Dave-pass-123', disabled: 'true' }, 'admin');
  admin = (await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice }, { headers: { 'x-forwarded-for': '10.9.9.9' } })).cookie;
});
afterAll(() => server.stop());

/** One login from `address`, with the hash computations it caused. */
async function attempt(user: string, password: string, address: string): Promise<{ sent: Sent; hashes: number }> {
  const before = server.hasher.stats.started;
  const sent = await login(base, { clientid: 'svc-web', user, password }, { headers: { 'x-forwarded-for': address } });
  return { sent, hashes: server.hasher.stats.started - before };
}

/** The problem body without anything that legitimately differs per request. */
const shape = (sent: Sent) => ({ status: sent.status, body: { ...sent.json, instance: undefined } });

it('unknown, disabled, locked and wrong-password logins get the same answer at the same cost', async () => {
  for (let i = 0; i < 5; i++) await attempt('bob', 'wrong-password', '10.1.0.1');
  const wrong = await attempt('alice', 'wrong-password', '10.1.0.2');
  const unknown = await attempt('nobody@example.com', 'whatever-pass', '10.1.0.2');
  const disabled = await attempt('dave', 'Dave-pass-123', '10.1.0.2');
  const locked = await attempt('bob', users.bob, '10.1.0.1');
  expect(wrong.sent.status).toBe(401);
  for (const other of [unknown, disabled, locked]) {
    expect(shape(other.sent)).toEqual(shape(wrong.sent));
    expect(other.hashes).toBe(wrong.hashes);
  }
  // svc-web has three password authenticators (employees, customers, system): one computation each.
  expect(wrong.hashes).toBe(3);
});

it('without a password (by a user, or a client principal) a locked attempt costs what an unlocked one does', async () => {
  const unlocked = await attempt('alice', '', '10.1.1.1');
  for (let i = 0; i < 5; i++) await attempt('alice', '', '10.1.1.1');
  const locked = await attempt('alice', '', '10.1.1.1');
  expect(shape(locked.sent)).toEqual(shape(unlocked.sent));
  expect(unlocked.hashes).toBe(3);
  expect(locked.hashes).toBe(unlocked.hashes);
});

it('5 failures from one address lock that (subject, address) pair for 15 minutes, however the name is spelled', async () => {
  const names = ['alice', 'ALICE', 'alice@example.com', 'Alice@Example.COM', 'alice'];
  for (const name of names) expect((await attempt(name, 'wrong-password', '10.2.0.1')).sent.status).toBe(401);
  expect((await attempt('alice', users.alice, '10.2.0.1')).sent.status).toBe(401);
  expect((await attempt('alice', users.alice, '10.2.0.2')).sent.status).toBe(200);
  clock += 14 * MINUTE;
  expect((await attempt('alice', users.alice, '10.2.0.1')).sent.status).toBe(401);
  clock += 1 * MINUTE;
  expect((await attempt('alice', users.alice, '10.2.0.1')).sent.status).toBe(200);
});

it('4 failures do not lock; a success clears the pair count', async () => {
  for (let i = 0; i < 4; i++) await attempt('alice', 'wrong-password', '10.3.0.1');
  expect((await attempt('alice', users.alice, '10.3.0.1')).sent.status).toBe(200);
  for (let i = 0; i < 4; i++) await attempt('alice', 'wrong-password', '10.3.0.1');
  expect((await attempt('alice', users.alice, '10.3.0.1')).sent.status).toBe(200);
});

it('50 failures from all addresses lock the subject; an admin lifts the lock', async () => {
  clock += 30 * MINUTE;
  for (let i = 0; i < 49; i++) await attempt('bob@example.com', 'wrong-password', `10.4.${i}.1`);
  expect((await attempt('bob', users.bob, '10.4.200.1')).sent.status).toBe(200);
  await attempt('bob', 'wrong-password', '10.4.100.1');
  const locked = await attempt('bob', users.bob, '10.4.201.1');
  expect(locked.sent.status).toBe(401);
  expect(locked.hashes).toBe(3);

  const denied = await send(`${base}/resources/contexts/employees/subjects/bob/lockout`, { method: 'DELETE' });
  expect(denied.status).toBe(401);
  // A fresh admin session: the clock has moved past the idle timeout of the first one.
  admin = (await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice }, { headers: { 'x-forwarded-for': '10.9.9.9' } })).cookie;
  const lifted = await send(`${base}/resources/contexts/employees/subjects/bob/lockout`, { method: 'DELETE', cookie: admin, headers: { 'x-forwarded-for': '10.9.9.9' } });
  expect(lifted.status).toBe(204);
  const after = await attempt('bob', users.bob, '10.4.201.1');
  expect(sessionOf(after.sent)).toMatchObject({ principal: { uniqueId: 'bob' } });
});

it('GET …/lockout and SEARCH include=status show who is locked (a pair lock included) and disabled, until when, to an admin', async () => {
  clock += 30 * MINUTE;
  admin = (await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice }, { headers: { 'x-forwarded-for': '10.9.9.9' } })).cookie;
  await server.core.subjects.create('employees', 'erin', { mail: 'erin@example.com', password: 'Erin-pass-123' }, 'admin');
  for (let i = 0; i < 5; i++) await attempt('erin', 'wrong-password', '10.7.0.1');
  const until = new Date(clock + 15 * MINUTE).toISOString();
  const asAdmin = { cookie: admin, headers: { 'x-forwarded-for': '10.9.9.9' } };
  const subjects = `${base}/resources/contexts/employees/subjects`;

  const lockout = await send(`${subjects}/erin/lockout`, asAdmin);
  expect(lockout.status).toBe(200);
  expect(lockout.json).toEqual({ locked: true, lockedUntil: until, failures: 5 });
  const xml = await send(`${subjects}/alice/lockout`, { ...asAdmin, headers: { ...asAdmin.headers, accept: 'application/xml' } });
  expect(xml.text).toContain('<lockout><locked>false</locked><lockedUntil nil="true"/><failures>0</failures></lockout>');
  expect((await send(`${subjects}/nobody/lockout`, asAdmin)).status).toBe(404);
  expect((await send(`${subjects}/erin/lockout?isAllowed=READ`, asAdmin)).json).toMatchObject({ decision: 'ALLOW', resource: 'contexts/employees/subjects/erin/lockout' });
  const bob = (await login(base, { clientid: 'svc-web', user: 'bob', password: users.bob }, { headers: { 'x-forwarded-for': '10.9.9.8' } })).cookie;
  expect((await send(`${subjects}/bob/lockout`, { cookie: bob, headers: { 'x-forwarded-for': '10.9.9.8' } })).status).toBe(401);

  const filter = encodeURIComponent('uniqueId eq "erin" or uniqueId eq "dave" or uniqueId eq "alice"');
  const search = await send(`${subjects}?include=status&filter=${filter}`, asAdmin);
  expect(search.status).toBe(200);
  expect((search.json!.results as Array<{ uniqueId: string; status: unknown }>).map((r) => [r.uniqueId, r.status])).toEqual([
    ['alice', { disabled: false, locked: false, lockedUntil: null }],
    ['dave', { disabled: true, locked: false, lockedUntil: null }],
    ['erin', { disabled: false, locked: true, lockedUntil: until }],
  ]);
  const plain = await send(`${subjects}?filter=${filter}`, asAdmin);
  expect((plain.json!.results as Array<Record<string, unknown>>).every((r) => !('status' in r))).toBe(true);
  const refused = await send(`${subjects}?include=roles`, asAdmin);
  expect(refused.status).toBe(400);
  expect(refused.json).toMatchObject({ code: 'invalid_request', errors: [{ path: 'include' }] });
  // Lifted, the status says so at once.
  expect((await send(`${subjects}/erin/lockout`, { ...asAdmin, method: 'DELETE' })).status).toBe(204);
  expect((await send(`${subjects}/erin/lockout`, asAdmin)).json).toEqual({ locked: false, lockedUntil: null, failures: 0 });
});

it('100 failures from one address get 429 with Retry-After, without hashing, until the window passes', async () => {
  clock += 30 * MINUTE;
  for (let i = 0; i < 100; i++) expect((await attempt(`ghost${i}`, 'wrong-password', '10.5.0.1')).sent.status).toBe(401);
  const throttled = await attempt('alice', users.alice, '10.5.0.1');
  expect(throttled.sent.status).toBe(429);
  expect(throttled.sent.json?.code).toBe('too_many_requests');
  expect(Number(throttled.sent.headers.get('retry-after'))).toBe(900);
  expect(throttled.hashes).toBe(0);
  expect((await attempt('alice', users.alice, '10.5.0.2')).sent.status).toBe(200);
  clock += 15 * MINUTE;
  expect((await attempt('alice', users.alice, '10.5.0.1')).sent.status).toBe(200);
});

it('locks and throttles are audited and counted', async () => {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  expect(text).toMatch(/svc_audit_events_total\{event="lockout",outcome="success",reason="pair"\} [1-9]/);
  expect(text).toMatch(/svc_audit_events_total\{event="lockout",outcome="success",reason="subject"\} 1/);
  expect(text).toMatch(/svc_audit_events_total\{event="lockout",outcome="success",reason="lifted"\} 2/);
  expect(text).toMatch(/svc_logins_total\{outcome="failure",reason="locked"\} [1-9]/);
  expect(text).toMatch(/svc_logins_total\{outcome="failure",reason="throttled"\} 1/);
});

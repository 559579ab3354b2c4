/**
 * SPEC 8: every audit line has `event`, time, session handle, client, principal, peer, outcome and
 * reason (null where the event has none: a failed login has no session, a reload by signal no
 * peer). Lines of every kind are made through a real core: failed and successful logins, a lockout
 * and its lifting, a DENY, a logout, subject writes that end sessions, a refused reload.
 */
import { sessionCookies } from '../authorization/helpers';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send } from '../helpers/http';
import { login } from '../helpers/login';
import { logLines, type LogLines } from '../helpers/log-lines';

const FIELDS = ['event', 'time', 'session', 'client', 'principal', 'peer', 'outcome', 'reason'];

let server: TestServer;
let logs: LogLines;

beforeAll(async () => {
  logs = logLines();
  server = await startTestServer({ logger: logs.logger });
});
afterAll(async () => server.stop());

test('every audit line names the event, time, session, client, principal, peer, outcome and reason', async () => {
  const base = server.baseUrl;
  const subjects = `${base}/resources/contexts/employees/subjects`;
  const { SYSTEM, BOB } = await sessionCookies(server);
  const system = SYSTEM.replace(/^SVCSESSIONID=/, '');
  const { users } = TEST_CREDENTIALS;

  // Failed logins until bob's pair lock starts, then a SYSTEM lifts it.
  for (let i = 0; i < server.core.config.settings.lockout.pairFailures; i++) {
    expect((await login(base, { clientid: 'svc-web', user: 'bob', password: 'Wrong-pass-123' })).status).toBe(401);
  }
  expect((await send(`${subjects}/bob/lockout`, { method: 'DELETE', cookie: system })).status).toBe(204);

  const alice = await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice });
  expect(alice.status).toBe(200);
  expect((await send(`${subjects}/alice`, { cookie: BOB.replace(/^SVCSESSIONID=/, ''), headers: { accept: 'application/json' } })).status).toBe(401);
  expect((await send(`${base}/logout`, { method: 'POST', cookie: alice.cookie, headers: { accept: 'application/json' } })).status).toBeLessThan(400);

  // A SYSTEM write that disables alice ends her new session.
  expect((await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice })).status).toBe(200);
  const disable = await send(`${subjects}/alice`, { method: 'PUT', cookie: system, json: { subject: { attributes: { disabled: 'true' } } }, headers: { accept: 'application/json' } });
  expect(disable.status).toBe(200);
  expect(server.reload('/nonexistent/svc.json').ok).toBe(false);

  const lines = logs.audits();
  const events = new Set(lines.map((line) => line.event));
  for (const event of ['login', 'lockout', 'access_denied', 'logout', 'subject_write', 'session_end', 'config_change']) expect(events).toContain(event);
  const lacking = lines.flatMap((line) => FIELDS.filter((field) => !(field in line)).map((field) => `${String(line.event)}/${String(line.reason)} lacks ${field}`));
  expect(lacking).toEqual([]);
  // What a request caused names its peer; a write names who wrote it.
  expect(lines.find((line) => line.event === 'subject_write')).toMatchObject({ session: expect.any(String), client: 'svc-web', principal: '/svcadmin', peer: expect.any(String) });
  expect(lines.find((line) => line.event === 'lockout' && line.reason === 'lifted')).toMatchObject({ session: expect.any(String), principal: '/svcadmin', subject: 'employees/bob' });
});

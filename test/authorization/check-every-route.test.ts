/**
 * SPEC section 6: `isAllowed` (in any letter case) makes a request a check on every route, pages,
 * login and logout and the config area included, and a check is never performed; a route with no
 * target answers 400 `invalid_operation`. Issue 24, item 14: `POST {base}/config/sessions/end?isAllowed=DELETE`
 * ended the session (204, no X-Svc-Decision) and `GET {base}/config?isAllowed[]=READ` returned the
 * configuration.
 */
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { call, sessionCookies, type Who } from './helpers';

let server: TestServer;
let who: Record<Who, string>;
let base: string;
const reloads: number[] = [];

beforeAll(async () => {
  server = await startTestServer({
    reload: () => {
      reloads.push(Date.now());
      return { ok: true };
    },
  });
  base = server.baseUrl;
  who = await sessionCookies(server);
});
afterAll(() => server.stop());

/** A fresh USER session of bob's, and its public handle. */
async function bobSession(): Promise<{ cookie: string; handle: string }> {
  const { session, cookieValue } = await server.core.sessions.create({ type: 'USER', clientId: 'svc-web', principal: { uniqueId: 'bob', contextId: 'employees' }, level: 2, authenticator: 'employees-password' });
  return { cookie: `SVCSESSIONID=${cookieValue}`, handle: session.handle };
}

const alive = async (cookie: string) => (await call(`${base}/resources/session`, { headers: { cookie } })).body?.session as Record<string, unknown> | undefined;
const form = (cookie: string) => ({ cookie, 'content-type': 'application/x-www-form-urlencoded' });

describe('the config area answers checks of `config` and performs nothing', () => {
  test('POST /config/sessions/end?isAllowed=DELETE is 400 invalid_operation; the session lives', async () => {
    const bob = await bobSession();
    const refused = await call(`${base}/config/sessions/end?isAllowed=DELETE`, { method: 'POST', headers: form(who.SYSTEM), body: `handle=${bob.handle}` });
    expect([refused.status, refused.code]).toEqual([400, 'invalid_operation']);
    expect(await alive(bob.cookie)).toMatchObject({ type: 'USER' });
  });

  test('POST /config/sessions/end?isAllowed=UPDATE is a check: ALLOW for SYSTEM, DENY for a user; the session lives', async () => {
    const bob = await bobSession();
    const allowed = await call(`${base}/config/sessions/end?isAllowed=UPDATE`, { method: 'POST', headers: form(who.SYSTEM), body: `handle=${bob.handle}` });
    expect([allowed.status, allowed.decision]).toEqual([200, 'ALLOW']);
    expect(allowed.body).toMatchObject({ decision: 'ALLOW', operation: 'UPDATE', resource: 'config', sessionType: 'SYSTEM' });
    const denied = await call(`${base}/config/sessions/end?isallowed=UPDATE`, { method: 'POST', headers: form(who.ALICE), body: `handle=${bob.handle}` });
    expect([denied.status, denied.decision, denied.authenticate]).toEqual([401, 'DENY', 'SvcSession realm="svc", error="access_denied"']);
    expect(await alive(bob.cookie)).toMatchObject({ type: 'USER' });
  });

  test('GET /config?isAllowed[]=READ is 400, never the configuration', async () => {
    const refused = await call(`${base}/config?isAllowed[]=READ`, { headers: { cookie: who.SYSTEM } });
    expect([refused.status, refused.code]).toEqual([400, 'invalid_operation']);
    expect(refused.body).not.toHaveProperty('config');
  });

  test.each(['isAllowed=READ', 'ISALLOWED=READ'])('GET /config?%s answers the check, not the configuration', async (query) => {
    const allowed = await call(`${base}/config?${query}`, { headers: { cookie: who.SYSTEM } });
    expect([allowed.status, allowed.decision]).toEqual([200, 'ALLOW']);
    expect(allowed.body).toEqual({ decision: 'ALLOW', operation: 'READ', resource: 'config', sessionType: 'SYSTEM', reason: expect.any(String) });
    for (const cookie of [who.BOB, who.ANON]) {
      const denied = await call(`${base}/config?${query}`, { headers: { cookie } });
      expect([denied.status, denied.decision, denied.body?.decision]).toEqual([401, 'DENY', 'DENY']);
    }
  });

  test('HEAD /config with X-Operation (form 1), GET /config/reload?isAllowed=UPDATE (form 3)', async () => {
    const head = await call(`${base}/config`, { method: 'HEAD', headers: { cookie: who.SYSTEM, 'x-operation': 'READ' } });
    expect([head.status, head.decision]).toEqual([200, 'ALLOW']);
    const form3 = await call(`${base}/config/reload?isAllowed=UPDATE`, { headers: { cookie: who.BOB } });
    expect([form3.status, form3.decision]).toEqual([401, 'DENY']);
  });

  test('POST /config/reload?isAllowed=UPDATE reloads nothing', async () => {
    const checked = await call(`${base}/config/reload?isAllowed=UPDATE`, { method: 'POST', headers: form(who.SYSTEM), body: '' });
    expect([checked.status, checked.decision]).toEqual([200, 'ALLOW']);
    expect(reloads).toEqual([]);
  });

  test.each([
    ['POST', '/config?isAllowed=READ', 'READ is checked with GET, not POST'],
    ['GET', '/config?isAllowed=UPDATE', 'UPDATE does not fit the configuration'],
    ['DELETE', '/config?isAllowed=DELETE', 'DELETE does not fit the configuration'],
    ['GET', '/config?isAllowed=READ&isAllowed=READ', 'isAllowed must be given once'],
    ['POST', '/config/sessions/end?isAllowed=READ', 'READ does not fit ending a session'],
  ])('%s %s is 400: %s', async (method, path, detail) => {
    const refused = await call(`${base}${path}`, { method, headers: form(who.SYSTEM), body: method === 'GET' ? undefined : '' });
    expect([refused.status, refused.code, refused.body?.detail]).toEqual([400, 'invalid_operation', detail]);
  });
});

describe('routes with no target answer a check with 400 invalid_operation, and do nothing', () => {
  test('POST /login?isAllowed=CREATE with good credentials logs nobody in', async () => {
    const res = await fetch(`${base}/login?isAllowed=CREATE`, {
      method: 'POST',
      redirect: 'manual',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ clientid: 'svc-web', user: 'bob', password: TEST_CREDENTIALS.users.bob }).toString(),
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect([res.status, body.code]).toEqual([400, 'invalid_operation']);
    // The authentication filter may have issued the visitor's ANON session; nobody is logged in.
    const issued = /^SVCSESSIONID=([^;]+)/.exec(res.headers.getSetCookie().join('\n'))?.[1];
    if (issued !== undefined) expect(await alive(`SVCSESSIONID=${issued}`)).toMatchObject({ type: 'ANON', principal: null });
  });

  test('POST /logout?isAllowed=DELETE ends nothing', async () => {
    const bob = await bobSession();
    const refused = await call(`${base}/logout?isAllowed=DELETE`, { method: 'POST', headers: form(bob.cookie), body: '' });
    expect([refused.status, refused.code]).toEqual([400, 'invalid_operation']);
    expect(await alive(bob.cookie)).toMatchObject({ type: 'USER' });
  });

  test.each([
    ['GET', '/?isAllowed=READ'],
    ['GET', '/login?isAllowed=READ'],
    ['HEAD', '/login?isAllowed=READ'],
    ['GET', '/logout?IsAllowed=READ'],
    ['GET', '/anon/register?isAllowed=CREATE'],
    ['POST', '/anon/register?isAllowed=CREATE'],
    ['GET', '/anon/forgot?isAllowed=READ'],
    ['GET', '/anon/login-error?isAllowed=READ'],
    ['GET', '/login?isAllowed[]=READ'],
    ['GET', '/resources/contexts/employees/subjects/bob/password/forgot?isAllowed=READ'],
    ['PUT', '/resources/contexts/employees/subjects/bob/password/forgot?isAllowed=UPDATE'],
    ['POST', '/access/v1/evaluation?isAllowed=READ'],
    ['POST', '/services/SubjectService?isAllowed=READ'],
  ])('%s %s', async (method, path) => {
    const refused = await call(`${base}${path}`, { method, headers: { cookie: who.SYSTEM, 'content-type': 'application/json' }, body: method === 'GET' || method === 'HEAD' ? undefined : '{}' });
    expect(refused.status).toBe(400);
    if (method !== 'HEAD') expect(refused.code).toBe('invalid_operation');
  });

  test('HEAD with X-Operation on a page is 400 too; an ordinary HEAD is not', async () => {
    expect((await call(`${base}/login`, { method: 'HEAD', headers: { 'x-operation': 'READ' } })).status).toBe(400);
    expect((await call(`${base}/login`, { method: 'HEAD', headers: { accept: 'text/html' } })).status).toBe(200);
  });
});

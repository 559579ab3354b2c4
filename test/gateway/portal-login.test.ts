/**
 * `POST {gw}/api/login` and `POST {gw}/api/logout` (SPEC section 9): portal users log in with their
 * svc name and password through the gateway's sealed UserPass login; the answer is the session
 * structure and the subject's roles, and the new core session is what the user's later requests use.
 */
import { forwardedForKey, verifyForwardedFor } from '../../common/src/assertion/forwarded-for';
import type { RunningGateway } from '../../gateway/src/index';
import { TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { logLines } from '../helpers/log-lines';
import { employee, portalLogin, send, startCoreAndGateway, stopCoreAndGateway, type SeenRequest } from './gateway-helpers';

const { users } = TEST_CREDENTIALS;
const coreLog = logLines();
const gatewayLog = logLines();
let core: TestServer;
let gateway: RunningGateway;
let seen: SeenRequest[];

beforeAll(async () => ({ core, gateway, seen } = await startCoreAndGateway({ core: { logger: coreLog.logger }, gatewayOptions: { logger: gatewayLog.logger } })));
afterAll(() => stopCoreAndGateway({ core, gateway }));

interface LoginAnswer {
  session: { uniqueId: string; type: string; clientId: string; principal: { uniqueId: string; contextId: string } | null; level: number; message: string };
  roles: string[];
}

describe('POST {gw}/api/login', () => {
  it("answers the session structure and the subject's roles; the user's next requests use that session", async () => {
    const from = seen.length;
    const answer = await portalLogin(gateway, 'bob', users.bob, { visitor: 'visitor-bob', address: '198.51.100.20' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(answer.headers['cache-control']).toBe('no-store');
    const body = answer.json<LoginAnswer>();
    expect(body).toEqual({
      session: { uniqueId: expect.any(String), type: 'USER', clientId: 'portal-gateway', principal: { uniqueId: 'bob', contextId: 'employees' }, level: 2, message: expect.any(String) },
      roles: ['user'],
    });
    // One sealed login, carrying the visitor's address.
    const logins = seen.slice(from).filter((req) => req.url === '/svc/login');
    expect(logins).toHaveLength(1);
    expect(logins[0].headers['x-forwarded-for']).toBeUndefined();
    const key = forwardedForKey(TEST_CREDENTIALS.clients['portal-gateway']);
    const vouched = verifyForwardedFor(String(logins[0].headers['x-svc-forwarded-for']), { method: 'POST', pathAndQuery: '/svc/login', now: Math.floor(Date.now() / 1000), keys: () => [key] });
    expect(vouched).toMatchObject({ ok: true, address: '198.51.100.20' });

    const next = seen.length;
    const session = await send(gateway, '/gw/api/session', { user: employee('bob'), visitor: 'visitor-bob' });
    expect(session.json<LoginAnswer>().session).toMatchObject({ uniqueId: body.session.uniqueId, level: 2 });
    expect(seen.slice(next).some((req) => req.url === '/svc/login')).toBe(false);
  });

  it('logs in by mail too, and answers an admin her roles', async () => {
    const answer = await portalLogin(gateway, 'Alice@Example.com', users.alice);
    expect(answer.json<LoginAnswer>()).toMatchObject({ session: { principal: { uniqueId: 'alice', contextId: 'employees' } }, roles: ['admin'] });
  });

  it("a wrong password and an unknown name are the core's same login_failed", async () => {
    const wrong = await portalLogin(gateway, 'bob', 'not-his-password', { address: '198.51.100.21' });
    const unknown = await portalLogin(gateway, 'nobody', 'not-a-password', { address: '198.51.100.21' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(wrong.json()).toMatchObject({ status: 401, code: 'login_failed' });
    expect(unknown.status).toBe(wrong.status);
    expect(unknown.json()).toEqual(wrong.json());
  });

  it('answers XML when the portal asks for it', async () => {
    const answer = await portalLogin(gateway, 'bob', users.bob, { headers: { accept: 'application/xml' } });
    expect(answer.headers['content-type']).toMatch(/^application\/xml/);
    expect(answer.text).toMatch(/<type>USER<\/type>.*<roles><value>user<\/value><\/roles>/s);
  });

  it.each([
    ['a form body', {}, 'user=bob&password=x', 'application/x-www-form-urlencoded', 415, 'unsupported_media_type'],
    ['unparseable JSON', {}, '{"user":', 'application/json', 400, 'malformed_body'],
    ['a JSON list', {}, '[]', 'application/json', 400, 'malformed_body'],
    ['no password', {}, JSON.stringify({ user: 'bob' }), 'application/json', 400, 'invalid_request'],
    ['an empty user', {}, JSON.stringify({ user: '', password: 'x' }), 'application/json', 400, 'invalid_request'],
    ['a number for a password', {}, JSON.stringify({ user: 'bob', password: 1234 }), 'application/json', 400, 'invalid_request'],
    ['another field', {}, JSON.stringify({ user: 'bob', password: 'x', clientid: 'svc-web' }), 'application/json', 400, 'invalid_request'],
  ])('%s is refused before the core sees it', async (_what, options, body, type, status, code) => {
    const from = seen.length;
    const answer = await send(gateway, '/gw/api/login', { user: null, ...options, method: 'POST', body, headers: { 'content-type': type } });
    expect(answer.status).toBe(status);
    expect(answer.json()).toMatchObject({ status, code });
    expect(seen.length).toBe(from);
  });

  it('GET /api/login is 404', async () => {
    expect((await send(gateway, '/gw/api/login', { user: null })).status).toBe(404);
  });
});

describe('POST {gw}/api/logout', () => {
  it('ends the core session the login made and forgets it: the next request logs in again (client principal, level 1)', async () => {
    const login = (await portalLogin(gateway, 'bob', users.bob)).json<LoginAnswer>();
    const live = async () => (await core.core.sessions.list(10_000)).map((session) => session.handle);
    expect(await live()).toContain(login.session.uniqueId);
    expect((await send(gateway, '/gw/api/logout', { user: employee('bob'), method: 'POST' })).status).toBe(204);
    expect(await live()).not.toContain(login.session.uniqueId);
    const after = await send(gateway, '/gw/api/session', { user: employee('bob') });
    expect(after.json<LoginAnswer>().session).toMatchObject({ principal: { uniqueId: 'bob' }, level: 1 });
    expect(after.json<LoginAnswer>().session.uniqueId).not.toBe(login.session.uniqueId);
  });

  it('a second login of the same user replaces (and ends) the session of the first', async () => {
    const first = (await portalLogin(gateway, 'alice', users.alice)).json<LoginAnswer>();
    const second = (await portalLogin(gateway, 'alice', users.alice)).json<LoginAnswer>();
    expect(second.session.uniqueId).not.toBe(first.session.uniqueId);
    expect((await send(gateway, '/gw/api/session')).json<LoginAnswer>().session.uniqueId).toBe(second.session.uniqueId);
    const ended = coreLog.audits().filter((a) => a.event === 'logout' && a.session === first.session.uniqueId);
    expect(ended).toHaveLength(1);
  });
});

describe('a portal user whose subject is disabled', () => {
  it('is revoked: the next request is 401 session_revoked, for the portal to end its session, and no login is tried', async () => {
    await core.core.subjects.create('employees', 'erin', { mail: 'erin@example.com', password: 'Erin-pass-123' }, 'admin');
    expect((await portalLogin(gateway, 'erin', 'Erin-pass-123')).status).toBe(200);
    const erin = employee('erin');
    expect((await send(gateway, '/gw/api/session', { user: erin })).status).toBe(200);
    const body = JSON.stringify({ subject: { attributes: { disabled: 'true' } } });
    expect((await send(gateway, '/gw/api/contexts/employees/subjects/erin', { method: 'PUT', body, headers: { 'content-type': 'application/json' } })).status).toBe(200);
    const refused = await send(gateway, '/gw/api/session', { user: erin });
    expect(refused.status).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'session_revoked' });
    expect((await send(gateway, '/gw/api/session', { user: erin })).json()).toMatchObject({ code: 'session_revoked' });
    // Another portal session of erin (one the gateway never held) cannot log in either.
    expect((await send(gateway, '/gw/api/session', { user: erin, visitor: 'another-portal-session' })).json()).toMatchObject({ code: 'login_failed' });
  });
});

describe('audit', () => {
  it("portal logins are audited by the gateway, and the core's login lines name the visitor's address", async () => {
    await portalLogin(gateway, 'bob', users.bob, { visitor: 'visitor-audit', address: '198.51.100.30' });
    await portalLogin(gateway, 'bob', 'wrong-password-here', { visitor: 'visitor-audit', address: '198.51.100.31' });
    const portal = gatewayLog.audits().filter((a) => a.event === 'portal_login' && String(a.peer).startsWith('198.51.100.3'));
    expect(portal).toEqual([
      expect.objectContaining({ outcome: 'success', user: 'employees/bob', peer: '198.51.100.30', portal: 'demo-portal' }),
      expect.objectContaining({ outcome: 'failure', reason: 'login_failed', peer: '198.51.100.31' }),
    ]);
    const coreLogins = coreLog.audits().filter((a) => a.event === 'login' && String(a.peer).startsWith('198.51.100.3'));
    expect(coreLogins.map((a) => [a.outcome, a.peer, a.client])).toEqual([
      ['success', '198.51.100.30', 'portal-gateway'],
      ['failure', '198.51.100.31', 'portal-gateway'],
    ]);
    for (const line of [...gatewayLog.audits(), ...coreLog.audits()]) {
      expect(JSON.stringify(line)).not.toContain(users.bob);
      expect(JSON.stringify(line)).not.toContain('wrong-password-here');
    }
  });
});

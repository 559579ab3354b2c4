import { Connection } from '../../client/src/connection';
import type { RunningGateway } from '../../gateway/src/index';
import { TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { coreRequestsDuring, employee, send, startCoreAndGateway, stopCoreAndGateway, type SeenRequest } from './gateway-helpers';
import { endSessionsOf } from '../helpers/sessions';

let core: TestServer;
let gateway: RunningGateway;
let seen: SeenRequest[];

beforeAll(async () => ({ core, gateway, seen } = await startCoreAndGateway({ gateway: { bodyLimit: 4096 } })));
afterAll(() => stopCoreAndGateway({ core, gateway }));

const ALICE = '/gw/api/contexts/employees/subjects/alice';
const cookieOf = (req: SeenRequest) => String(req.headers.cookie ?? '');

describe('stripping', () => {
  it('spoofed cookies, Authorization, svcid and credential parameters never reach the core', async () => {
    const admin = await Connection.open(
      { kind: 'password', user: 'svcadmin', password: TEST_CREDENTIALS.users.svcadmin },
      { config: { baseUrl: core.baseUrl, clientId: 'svc-api', secret: TEST_CREDENTIALS.clients['svc-api'] } },
    );
    const systemCookie = admin.exportSession().cookie;
    await admin.detach();
    const path = '/gw/api/session?user=svcadmin&Password=x&TOKEN=y&ClientId=svc-api&clientcred=z&keep=1';
    const from = seen.length;
    const answer = await send(gateway, path, {
      headers: { cookie: `SVCSESSIONID=${systemCookie}`, authorization: 'Basic c3ZjYWRtaW46eA==', svcid: 'svcadmin' },
    });
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ session: { type: 'USER', principal: { uniqueId: 'alice' } } });
    expect(answer.headers['set-cookie']).toBeUndefined();
    const proxied = seen.slice(from).filter((req) => req.url.startsWith('/svc/resources/session'));
    expect(proxied).toHaveLength(1);
    const [req] = proxied;
    expect(req.url).toBe('/svc/resources/session?keep=1');
    expect(cookieOf(req)).not.toContain(systemCookie);
    expect(cookieOf(req)).toMatch(/^SVCSESSIONID=[^;]+$/);
    expect(req.headers.authorization).toBeUndefined();
    expect(req.headers.svcid).toBeUndefined();
    expect(req.headers['x-svc-principal']).toBeUndefined();
  });
});

describe('the four check forms pass through', () => {
  const asBob = { user: employee('bob') };
  it.each([
    ['1: HEAD + X-Operation', 'HEAD', ALICE, { 'x-operation': 'DELETE' }],
    ['2: real method + ?isAllowed=', 'DELETE', `${ALICE}?isAllowed=DELETE`, {}],
    ['3: GET + ?isAllowed=', 'GET', `${ALICE}?isallowed=DELETE`, {}],
    ['4: /authz/...', 'DELETE', '/gw/api/authz/employees/subjects/alice', {}],
  ])('form %s: bob may not DELETE alice (DENY unchanged)', async (_name, method, path, headers) => {
    const answer = await send(gateway, path, { ...asBob, method, headers });
    expect(answer.status).toBe(401);
    expect(answer.headers['x-svc-decision']).toBe('DENY');
    expect(answer.headers['www-authenticate']).toBe('SvcSession realm="svc", error="access_denied"');
    if (method !== 'HEAD') expect(answer.json()).toMatchObject({ decision: 'DENY', operation: 'DELETE', resource: 'contexts/employees/subjects/alice', sessionType: 'USER' });
  });

  it('alice still exists, and alice (admin) may DELETE bob', async () => {
    expect((await send(gateway, ALICE)).status).toBe(200);
    const allow = await send(gateway, '/gw/api/contexts/employees/subjects/bob?isAllowed=DELETE');
    expect(allow.status).toBe(200);
    expect(allow.headers['x-svc-decision']).toBe('ALLOW');
  });

  it('AuthZEN evaluation passes with its body', async () => {
    const body = JSON.stringify({ action: { name: 'DELETE' }, resource: { type: 'subject', id: 'employees/alice' } });
    const answer = await send(gateway, '/gw/api/access/v1/evaluation', { ...asBob, method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ decision: false });
  });
});

describe('routes', () => {
  it('writes pass with their body; a body over the limit is 413', async () => {
    const body = JSON.stringify({ subject: { attributes: { givenName: 'Alicia' } } });
    const answer = await send(gateway, ALICE, { method: 'PUT', body, headers: { 'content-type': 'application/json' } });
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ subject: { attributes: { givenName: 'Alicia' } } });
    const big = JSON.stringify({ subject: { attributes: { givenName: 'x'.repeat(5000) } } });
    expect((await send(gateway, ALICE, { method: 'PUT', body: big, headers: { 'content-type': 'application/json' } })).status).toBe(413);
  });

  it.each([
    '/gw/api/../config', '/gw/api/%2e%2e/config', '/gw/api/contexts/%2E%2E/%2e%2e/config', '/gw/api/contexts/..%2fconfig',
    '/gw/config', '/gw/login', '/gw/api/login', '/gw/api/config', '/gw//api/session', '/gw/api/session/', '/gw/api/./session',
    '/gw/api/resources/session', '/config', '/svc/config', '/gw/api/contexts\\..\\config',
  ])('%s is 404 and reaches nothing', async (path) => {
    const { result: answer, seen } = await coreRequestsDuring(core, () => send(gateway, path));
    expect(answer.status).toBe(404);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(seen).toEqual([]);
  });
});

describe('core sessions', () => {
  it('an ended core session is renewed once, transparently', async () => {
    expect((await send(gateway, '/gw/api/session')).status).toBe(200);
    const renewals = async () => (await gateway.metrics.renewals.get()).values[0]?.value ?? 0;
    const before = await renewals();

    await endSessionsOf(core, 'employees', 'alice');
    const read = await send(gateway, ALICE);
    expect(read.status).toBe(200);
    expect(read.json()).toMatchObject({ subject: { uniqueId: 'alice' } });

    await endSessionsOf(core, 'employees', 'alice');
    const session = await send(gateway, '/gw/api/session');
    expect(session.json()).toMatchObject({ session: { type: 'USER', principal: { uniqueId: 'alice' } } });
    expect(session.headers['set-cookie']).toBeUndefined();
    expect(await renewals()).toBe(before + 2);
  });

  it('two portal sessions of one user hold two core sessions: the portal, user and visitor handle name one (SPEC 9)', async () => {
    const handleOf = async (visitor: string) => (await send(gateway, '/gw/api/session', { user: employee('bob'), visitor })).json<{ session: { uniqueId: string } }>().session.uniqueId;
    const first = await handleOf('portal-session-a');
    const second = await handleOf('portal-session-b');
    expect(second).not.toBe(first);
    expect(await handleOf('portal-session-a')).toBe(first);
  });

  it('a revoked core session is never renewed: 401 session_revoked, and no login for that portal session again (SPEC 9)', async () => {
    await core.core.subjects.create('employees', 'frank', { mail: 'frank@example.com', password: 'Frank-pass-123' }, 'admin');
    const frank = { user: employee('frank'), visitor: 'portal-session-revoked' };
    expect((await send(gateway, '/gw/api/session', frank)).status).toBe(200);
    const renewals = async () => (await gateway.metrics.renewals.get()).values[0]?.value ?? 0;
    const before = await renewals();
    await core.core.sessions.endForPrincipal('employees', 'frank');
    for (let n = 0; n < 2; n++) {
      const { result: answer, seen: atCore } = await coreRequestsDuring(core, () => send(gateway, '/gw/api/contexts/employees/subjects/frank', frank));
      expect(answer.status).toBe(401);
      expect(answer.json()).toMatchObject({ code: 'session_revoked' });
      expect(answer.headers['www-authenticate']).toBe('SvcSession realm="svc", error="session_revoked"');
      // The first reaches the core with the revoked session; no request logs in again.
      expect(atCore.filter((req) => req.url.startsWith('/svc/login'))).toEqual([]);
      expect(atCore).toHaveLength(n === 0 ? 1 : 0);
    }
    expect(await renewals()).toBe(before);
  });

  it('POST /api/logout ends the core session and drops it from the cache', async () => {
    const from = seen.length;
    expect((await send(gateway, '/gw/api/session', { user: employee('bob') })).status).toBe(200);
    const cookie = cookieOf(seen.slice(from).find((req) => req.url === '/svc/resources/session')!).split('=')[1];
    expect((await core.core.sessions.resolve(cookie)).session).toBeDefined();

    const logout = await send(gateway, '/gw/api/logout', { user: employee('bob'), method: 'POST' });
    expect(logout.status).toBe(204);
    expect((await core.core.sessions.resolve(cookie)).session).toBeUndefined();

    const again = seen.length;
    expect((await send(gateway, '/gw/api/session', { user: employee('bob') })).json()).toMatchObject({ session: { principal: { uniqueId: 'bob' } } });
    expect(seen.slice(again).some((req) => req.url === '/svc/login')).toBe(true);
  });
});

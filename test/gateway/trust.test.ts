import { signPrincipalAssertion } from '../../common/src/assertion/principal-assertion';
import type { RunningGateway } from '../../gateway/src/index';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { PORTAL, PORTAL_SECRET, coreRequestsDuring, employee, send, startTestGateway } from './gateway-helpers';

let core: TestServer;
let gateway: RunningGateway;

beforeAll(async () => {
  core = await startTestServer();
  gateway = await startTestGateway([core.baseUrl]);
});

afterAll(async () => {
  await gateway.close();
  await core.stop();
});

describe('portal trust', () => {
  it('a valid assertion reads as that user', async () => {
    const answer = await send(gateway, '/gw/api/session');
    expect(answer.status).toBe(200);
    const { session } = answer.json<{ session: { type: string; clientId: string; principal: { uniqueId: string } } }>();
    expect(session).toMatchObject({ type: 'USER', clientId: 'portal-gateway', principal: { uniqueId: 'alice' } });
    expect(answer.headers['set-cookie']).toBeUndefined();
  });

  it("an anonymous visitor gets the core's default ANON session (no clientId: no login by the gateway)", async () => {
    const answer = await send(gateway, '/gw/api/session', { user: null, visitor: 'visitor-7' });
    expect(answer.status).toBe(200);
    expect(answer.json<{ session: { type: string; principal: unknown } }>().session).toMatchObject({ type: 'ANON', clientId: '', principal: null, level: 0 });
  });

  const refusals: [string, (path: string) => Parameters<typeof send>[2]][] = [
    ['missing', () => ({ assertion: false })],
    ['forged', (path) => ({ assertion: signPrincipalAssertion({ portalId: PORTAL, secret: 'x'.repeat(43), user: employee('alice'), visitor: 'v', method: 'GET', pathAndQuery: path }) })],
    ['expired', (path) => ({ assertion: signPrincipalAssertion({ portalId: PORTAL, secret: PORTAL_SECRET, user: employee('alice'), visitor: 'v', method: 'GET', pathAndQuery: path, now: Math.floor(Date.now() / 1000) - 61 }) })],
    ['signed for another path', () => ({ assertion: signPrincipalAssertion({ portalId: PORTAL, secret: PORTAL_SECRET, user: employee('svcadmin'), visitor: 'v', method: 'GET', pathAndQuery: '/gw/api/contexts' }) })],
    ['unknown portal', (path) => ({ assertion: signPrincipalAssertion({ portalId: 'other', secret: PORTAL_SECRET, user: employee('alice'), visitor: 'v', method: 'GET', pathAndQuery: path }) })],
    ['garbage', () => ({ assertion: 'v1.demo-portal....' })],
  ];

  it.each(refusals)('%s assertions are 401 problem details and reach nothing', async (_name, options) => {
    const path = '/gw/api/session';
    const { result: answer, seen } = await coreRequestsDuring(core, () => send(gateway, path, options(path)));
    expect(answer.status).toBe(401);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.json()).toMatchObject({ status: 401, code: 'invalid_assertion' });
    expect(seen).toEqual([]);
  });

  it('a replayed assertion is 401 and reaches nothing', async () => {
    const path = '/gw/api/session';
    const assertion = signPrincipalAssertion({ portalId: PORTAL, secret: PORTAL_SECRET, user: employee('alice'), visitor: 'v', method: 'GET', pathAndQuery: path });
    expect((await send(gateway, path, { assertion })).status).toBe(200);
    const { result: replay, seen } = await coreRequestsDuring(core, () => send(gateway, path, { assertion }));
    expect(replay.status).toBe(401);
    expect(seen).toEqual([]);
  });

  it('counts failures by reason in /metrics, which needs no assertion', async () => {
    const metrics = await send(gateway, '/metrics', { assertion: false });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/svc_gateway_assertion_failures_total\{reason="missing"\} [1-9]/);
    expect(metrics.text).toMatch(/svc_gateway_assertion_failures_total\{reason="bad_signature"\} [1-9]/);
    expect((await send(gateway, '/health', { assertion: false })).json()).toEqual({ status: 'ok' });
    expect((await send(gateway, '/ready', { assertion: false })).status).toBe(200);
  });
});

describe('the nonce cache', () => {
  it('holds nonceCacheSize nonces; when full of live ones it answers 503 and never forgets one', async () => {
    const small = await startTestGateway([core.baseUrl], { nonceCacheSize: 2 });
    try {
      const path = '/gw/api/session';
      const first = signPrincipalAssertion({ portalId: PORTAL, secret: PORTAL_SECRET, user: employee('alice'), visitor: 'v', method: 'GET', pathAndQuery: path });
      expect((await send(small, path, { assertion: first })).status).toBe(200);
      expect((await send(small, path)).status).toBe(200);
      const third = await send(small, path);
      expect(third.status).toBe(503);
      expect(third.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect((await send(small, path, { assertion: first })).status).toBe(401);
    } finally {
      await small.close();
    }
  });
});

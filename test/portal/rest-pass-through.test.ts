/**
 * `{portal}/api/…` forwards to `{gw}/api/…` as the portal session's principal: against an HTTP
 * server that verifies each assertion with the gateway's verifier and records what arrived.
 */
import http from 'node:http';
import { ASSERTION_HEADER, type VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import { Browser, startTestPortal, type TestPortal } from './portal-helpers';
import { verifyingGateway, type VerifyingGateway } from './verifying-gateway';

interface Arrived {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  principal: VerifiedPrincipal | 'refused';
  body: string;
}

describe('the REST pass-through', () => {
  const arrived: Arrived[] = [];
  let gateway: VerifyingGateway;
  let portal: TestPortal;

  beforeAll(async () => {
    gateway = await verifyingGateway((req, res, principal, body) => {
      arrived.push({ method: req.method!, url: req.url!, headers: req.headers, principal, body });
      // A create answers with the new subject's place, as the gateway writes it (or as `?location=` says).
      const location = req.method === 'POST' ? (new URL(req.url!, 'http://gw').searchParams.get('location') ?? '/gw/api/contexts/employees/subjects/carol') : undefined;
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json', 'set-cookie': 'SVCSESSIONID=core-session; Path=/', ...(location ? { location } : {}) }).end('{"ok":true}');
    });
    portal = await startTestPortal({ gateways: [gateway.url], pages: [{ id: 'home', title: 'Home', windows: [{ id: 'a', portlet: 'counter' }] }] });
  });
  afterAll(async () => {
    await portal.stop();
    await gateway.close();
  });

  test('a visitor\'s GET: signed for the visitor over the gateway path as sent; cookies, credentials and Set-Cookie never pass', async () => {
    const visitor = new Browser(portal);
    await visitor.get('/portal/page/home');
    arrived.length = 0;
    const answer = await visitor.send('GET', '/portal/api/contexts/employees/subjects?search=bo&user=bob&password=x&TOKEN=t&clientcred=c', undefined, { authorization: 'Basic eDp5', [ASSERTION_HEADER]: 'v2.forged', 'x-forwarded-for': '198.51.100.1' });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('{"ok":true}');
    expect(answer.headers.getSetCookie()).toEqual([]);
    expect(arrived).toHaveLength(1);
    const [request] = arrived;
    expect(request.url).toBe('/gw/api/contexts/employees/subjects?search=bo');
    expect(request.principal).toMatchObject({ portalId: 'demo-portal', user: null, address: '127.0.0.1' });
    expect(request.headers.cookie).toBeUndefined();
    expect(request.headers.authorization).toBeUndefined();
    expect(request.headers['x-forwarded-for']).toBeUndefined();
  });

  test("the core's renamed credential parameters (portal credentialParameters) never pass either, in any letter case", async () => {
    const renamed = await startTestPortal({ gateways: [gateway.url], credentialParameters: ['login'], pages: [{ id: 'home', title: 'Home', windows: [{ id: 'a', portlet: 'counter' }] }] });
    try {
      const visitor = new Browser(renamed);
      await visitor.get('/portal/page/home');
      arrived.length = 0;
      expect((await visitor.send('GET', '/portal/api/contexts/employees/subjects?search=bo&LOGIN=bob&user=bob')).status).toBe(200);
      expect(arrived.map((request) => request.url)).toEqual(['/gw/api/contexts/employees/subjects?search=bo']);
    } finally {
      await renamed.stop();
    }
  });

  test('a user\'s write needs X-Requested-With and a same-origin Origin; then it is signed for the user with its body', async () => {
    const alice = Browser.loggedIn(portal, 'employees/alice', ['admin']);
    arrived.length = 0;
    const path = '/portal/api/contexts/employees/subjects/bob';
    const json = { 'content-type': 'application/json' };
    expect((await alice.send('PUT', path, '{}', { ...json, origin: portal.url })).status).toBe(403);
    expect((await alice.send('PUT', path, '{}', { ...json, 'x-requested-with': 'fetch', origin: 'https://evil.example' })).status).toBe(403);
    expect((await alice.send('PUT', path, '{}', { ...json, 'x-requested-with': 'fetch' })).status).toBe(403);
    expect(arrived).toEqual([]);
    const answer = await alice.send('PUT', path, '{"subject":{"attributes":{"givenName":"Bo"}}}', { ...json, 'x-requested-with': 'fetch', origin: portal.url });
    expect(answer.status).toBe(200);
    expect(arrived).toMatchObject([{ method: 'PUT', url: '/gw/api/contexts/employees/subjects/bob', principal: { user: { contextId: 'employees', uniqueId: 'alice' } }, body: '{"subject":{"attributes":{"givenName":"Bo"}}}' }]);
  });

  test('a path that normalises outside {root}/api is 404 and reaches nothing', async () => {
    arrived.length = 0;
    const { hostname, port } = new URL(portal.url);
    // node:http sends the path as written (fetch would normalise it first).
    for (const path of ['/portal/api/%2e%2e/page/home', '/portal/api/../../gw/config']) {
      const status = await new Promise<number>((resolve, reject) => {
        http.get({ hostname, port, path }, (res) => resolve(res.resume().statusCode ?? 0)).on('error', reject);
      });
      expect(status).toBe(404);
    }
    expect(arrived).toEqual([]);
  });

  test('Expect: 100-continue changes nothing: a 2 MiB upload passes with the allow-listed headers and the portal\'s assertion only', async () => {
    const alice = Browser.loggedIn(portal, 'employees/alice', ['admin']);
    const cookie = [...alice.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const body = JSON.stringify({ subject: { uniqueId: 'carol', attributes: { givenName: 'c'.repeat(2 * 1024 * 1024) } } });
    arrived.length = 0;
    const { hostname, port } = new URL(portal.url);
    const answer = await new Promise<{ status: number; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
      const req = http.request({
        hostname,
        port,
        method: 'POST',
        path: '/portal/api/contexts/employees/subjects',
        headers: {
          expect: '100-continue',
          cookie: `${cookie}; SVCSESSIONID=stolen`,
          authorization: 'Basic eDp5',
          [ASSERTION_HEADER]: 'v2.forged',
          'x-forwarded-for': '198.51.100.1',
          forwarded: 'for=198.51.100.1',
          origin: portal.url,
          'x-requested-with': 'fetch',
          'x-custom': 'not on the list',
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
      });
      req.on('continue', () => req.end(body));
      req.on('response', (res) => resolve({ status: res.resume().statusCode ?? 0, headers: res.headers }));
      req.on('error', reject);
    });
    expect(answer.status).toBe(201);
    expect(arrived).toHaveLength(1);
    const [request] = arrived;
    expect(request.principal).toMatchObject({ user: { contextId: 'employees', uniqueId: 'alice' } });
    expect(request.body).toBe(body);
    // Only the allow-list, the portal's assertion and what node adds to frame the request.
    expect(Object.keys(request.headers).sort()).toEqual(['connection', 'content-length', 'content-type', 'host', ASSERTION_HEADER.toLowerCase()].sort());
  });

  test('a Location is rewritten to {portal}/api/…, one outside the gateway\'s API is dropped; every answer carries nosniff', async () => {
    const alice = Browser.loggedIn(portal, 'employees/alice', ['admin']);
    const create = (location?: string) =>
      alice.send('POST', `/portal/api/contexts/employees/subjects${location ? `?location=${encodeURIComponent(location)}` : ''}`, '{}', { 'content-type': 'application/json', 'x-requested-with': 'fetch', origin: portal.url });
    const relative = await create();
    expect({ status: relative.status, location: relative.location, nosniff: relative.headers.get('x-content-type-options') }).toEqual({ status: 201, location: '/portal/api/contexts/employees/subjects/carol', nosniff: 'nosniff' });
    expect((await create(`${gateway.url}/api/contexts/employees/subjects/dave?x=1`)).location).toBe('/portal/api/contexts/employees/subjects/dave?x=1');
    expect((await create('https://evil.example/gw/api/contexts')).location).toBeNull();
    expect((await create('/gw/config')).location).toBeNull();
    expect((await alice.get('/portal/api/session')).headers.get('x-content-type-options')).toBe('nosniff');
    // The pass-through's own refusals too.
    expect((await alice.send('PUT', '/portal/api/contexts/employees/subjects/bob', '{}')).headers.get('x-content-type-options')).toBe('nosniff');
  });
});

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
      res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'SVCSESSIONID=core-session; Path=/' }).end('{"ok":true}');
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
});

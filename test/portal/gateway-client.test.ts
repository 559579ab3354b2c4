/**
 * The gateway client against two real HTTP servers that verify each assertion with the gateway's
 * own verifier and answer as a gateway would: signing, spreading, skipping an unreachable gateway,
 * and problem details as typed errors.
 */
import type { VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import { SvcAccessDeniedError, SvcNotFoundError, SvcTransportError } from '../../client/src/errors';
import { DEFINITION_LIFETIME_MS, GatewayClient, apiPath } from '../../portlet-adapter/src/gateway-client';
import { PORTAL_SECRET } from './portal-helpers';
import { verifyingGateway, type VerifyingGateway } from './verifying-gateway';

interface Seen {
  gateway: number;
  method: string;
  url: string;
  principal: VerifiedPrincipal;
  body: string;
  /** The If-None-Match it carried (a definition's revalidation). */
  ifNoneMatch?: string;
}

function fakeGateway(index: number, seen: Seen[]): Promise<VerifyingGateway> {
  return verifyingGateway((req, res, principal, body) => {
    if (principal === 'refused') return void res.writeHead(401).end();
    seen.push({ gateway: index, method: req.method!, url: req.url!, principal, body, ...(req.headers['if-none-match'] ? { ifNoneMatch: req.headers['if-none-match'] } : {}) });
    if (req.url!.includes('/missing')) {
      res.writeHead(404, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ type: 'urn:svc:problem:not_found', title: 'Not found', status: 404, code: 'not_found' }));
    } else if (req.url!.includes('/denied')) {
      res.writeHead(403, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ title: 'Access denied', status: 403, code: 'access_denied' }));
    } else if (req.url!.endsWith('/access/v1/evaluations')) {
      const items = (JSON.parse(body) as { evaluations: { action: { name: string } }[] }).evaluations;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ evaluations: items.map((item) => (item.action.name === 'READ' ? { decision: true } : { error: { code: 'x' } })) }));
    } else if (/\/contexts\/[^/]+$/.test(req.url!)) {
      // The core's definitions carry an ETag; one that still names it is answered 304.
      if (req.headers['if-none-match'] === '"v1"') return void res.writeHead(304, { etag: '"v1"' }).end();
      res.writeHead(200, { 'content-type': 'application/json', etag: '"v1"' }).end(JSON.stringify({ context: { id: req.url!.slice(req.url!.lastIndexOf('/') + 1), attributes: { mail: { type: 'email' } } } }));
    } else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
  });
}

describe('the gateway client', () => {
  const seen: Seen[] = [];
  let gateways: { url: string; close(): Promise<void> }[];
  const bob = { user: { contextId: 'employees', uniqueId: 'bob' }, visitor: 'portal-session-42', address: '203.0.113.7' };

  beforeAll(async () => {
    gateways = [await fakeGateway(0, seen), await fakeGateway(1, seen)];
  });
  afterAll(async () => {
    for (const g of gateways) await g.close();
  });

  test('every request carries a v2 assertion for the user, the visitor handle and the address, over the path and query as sent', async () => {
    const client = new GatewayClient({ gateways: [gateways[0].url], portalId: 'demo-portal', secret: PORTAL_SECRET });
    seen.length = 0;
    await client.request(bob, { method: 'PUT', path: apiPath('contexts', 'employees', 'subjects', 'bob'), query: { x: 'a b' }, body: { subject: { attributes: { givenName: 'Bob' } } }, headers: { 'If-Match': '"1"', Cookie: 'no' } });
    await client.request({ user: null, visitor: 'visitor-1', address: null }, { method: 'GET', path: '/session' });
    expect(seen).toEqual([
      { gateway: 0, method: 'PUT', url: '/gw/api/contexts/employees/subjects/bob?x=a+b', principal: { portalId: 'demo-portal', user: bob.user, visitor: 'cG9ydGFsLXNlc3Npb24tNDI', address: '203.0.113.7' }, body: '{"subject":{"attributes":{"givenName":"Bob"}}}' },
      { gateway: 0, method: 'GET', url: '/gw/api/session', principal: { portalId: 'demo-portal', user: null, visitor: 'dmlzaXRvci0x', address: null }, body: '' },
    ]);
    await client.close();
  });

  test('requests are spread over the gateways; an unreachable one is skipped and nothing is sent twice', async () => {
    const unreachable = 'http://127.0.0.1:9/gw';
    const client = new GatewayClient({ gateways: [gateways[0].url, unreachable, gateways[1].url], portalId: 'demo-portal', secret: PORTAL_SECRET });
    seen.length = 0;
    for (let i = 0; i < 6; i++) await client.request(bob, { method: 'POST', path: '/session', body: { i } });
    expect(seen.map((s) => s.gateway)).toEqual([0, 1, 0, 1, 0, 1]);
    expect(seen.map((s) => JSON.parse(s.body).i)).toEqual([0, 1, 2, 3, 4, 5]);
    await client.close();
    const none = new GatewayClient({ gateways: [unreachable], portalId: 'demo-portal', secret: PORTAL_SECRET });
    await expect(none.request(bob, { method: 'GET', path: '/session' })).rejects.toMatchObject({ code: 'transport_error' });
    await expect(none.request(bob, { method: 'GET', path: '/session' })).rejects.toBeInstanceOf(SvcTransportError);
    expect(await none.ready()).toBe(false);
    await none.close();
  });

  test('problem details become typed errors; an evaluation batch answers in order, a failed item as DENY; writes are reported', async () => {
    const client = new GatewayClient({ gateways: [gateways[1].url], portalId: 'demo-portal', secret: PORTAL_SECRET });
    await expect(client.request(bob, { method: 'GET', path: '/contexts/employees/subjects/missing' })).rejects.toBeInstanceOf(SvcNotFoundError);
    await expect(client.request(bob, { method: 'GET', path: '/denied' })).rejects.toMatchObject({ status: 403, code: 'access_denied', constructor: SvcAccessDeniedError });
    expect(await client.evaluations(bob, [{ action: 'READ', resource: { type: 'subject', id: 'employees/bob' } }, { action: 'DELETE', resource: { type: 'subject', id: 'employees/bob' } }])).toEqual([true, false]);
    const writes: string[] = [];
    const bound = client.bind(bob, (path) => writes.push(path));
    await bound.get('/session');
    await bound.put('/contexts/employees/subjects/bob', {});
    expect(writes).toEqual(['/contexts/employees/subjects/bob']);
    await client.close();
  });

  test('a context\'s definition is asked of each gateway once per DEFINITION_LIFETIME_MS, whoever asks, concurrent askers sharing the request; its answer is read-only; a failure is not kept', async () => {
    let now = 1_000_000;
    const client = new GatewayClient({ gateways: [gateways[0].url, gateways[1].url], portalId: 'demo-portal', secret: PORTAL_SECRET, now: () => now });
    const alice = { ...bob, user: { contextId: 'employees', uniqueId: 'alice' } };
    const definition = (who: typeof bob) => client.request<{ context: { attributes: Record<string, unknown> } }>(who, { method: 'GET', path: '/contexts/employees' });
    seen.length = 0;
    await Promise.all([definition(bob), definition(alice), definition(bob), definition(alice)]);
    for (let i = 0; i < 4; i++) await definition(i % 2 ? alice : bob);
    expect(seen.map((s) => `${s.gateway} ${s.url}`)).toEqual(['0 /gw/api/contexts/employees', '1 /gw/api/contexts/employees']);
    const answer = await definition(bob);
    expect(Object.isFrozen(answer.body!.context.attributes)).toBe(true);
    expect(() => {
      answer.body!.context.attributes.mail = {};
    }).toThrow(TypeError);
    now += DEFINITION_LIFETIME_MS;
    // Past its lifetime it is revalidated with its ETag: the 304 keeps the definition held, for another lifetime.
    expect(await definition(bob)).toEqual(answer);
    expect(seen.map((s) => s.ifNoneMatch)).toEqual([undefined, undefined, '"v1"']);
    // Anything else is asked every time: a subject, a query, a failed definition.
    seen.length = 0;
    await definition(bob);
    await client.request(bob, { method: 'GET', path: '/contexts/employees/subjects/bob' });
    await client.request(bob, { method: 'GET', path: '/contexts/employees/subjects/bob' });
    await expect(client.request(bob, { method: 'GET', path: '/contexts/missing' })).rejects.toBeInstanceOf(SvcNotFoundError);
    await expect(client.request(bob, { method: 'GET', path: '/contexts/missing' })).rejects.toBeInstanceOf(SvcNotFoundError);
    expect(seen.map((s) => s.url)).toEqual(['/gw/api/contexts/employees', '/gw/api/contexts/employees/subjects/bob', '/gw/api/contexts/employees/subjects/bob', '/gw/api/contexts/missing', '/gw/api/contexts/missing']);
    await client.close();
  });

  test('within one bound request (one portal request), the same GET is sent once and its answer shared; a write forgets what was read', async () => {
    const client = new GatewayClient({ gateways: [gateways[0].url], portalId: 'demo-portal', secret: PORTAL_SECRET });
    const bound = client.bind(bob);
    const path = apiPath('contexts', 'employees', 'subjects', 'bob');
    seen.length = 0;
    const [first, second] = await Promise.all([bound.get(path), bound.get(path)]);
    expect(first).toBe(second);
    await bound.get(path, { q: '1' });
    await bound.put(path, {});
    await bound.get(path);
    await client.bind(bob).get(path);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([`GET /gw/api${path}`, `GET /gw/api${path}?q=1`, `PUT /gw/api${path}`, `GET /gw/api${path}`, `GET /gw/api${path}`]);
    await client.close();
  });
});

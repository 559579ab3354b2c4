/**
 * Forwarding is an allow-list both ways (SPEC section 9). Against a real core: what the portal sends
 * beyond the list never arrives. Against a capture server standing in for a core (so that it can
 * answer headers a real core would never send): what the core answers beyond the list never reaches
 * the portal, Location is rewritten to the gateway's path, and the core's cookies never reach the
 * portal as cookies (a visitor's core session cookie comes back sealed in X-Svc-Visitor-State).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { forwardedForKey, verifyForwardedFor } from '../../common/src/assertion/forwarded-for';
import type { RunningGateway } from '../../gateway/src/index';
import { TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { employee, send, startCoreAndGateway, startTestGateway, stopCoreAndGateway, type SeenRequest } from './gateway-helpers';

/** The address a core would read from the request's X-Svc-Forwarded-For (verified with the gateway client's key), if any. */
function vouchedAddress(req: { method: string; url: string; headers: http.IncomingHttpHeaders }): string | undefined {
  const header = req.headers['x-svc-forwarded-for'];
  if (typeof header !== 'string') return undefined;
  const key = forwardedForKey(TEST_CREDENTIALS.clients['portal-gateway']);
  const verified = verifyForwardedFor(header, { method: req.method, pathAndQuery: req.url, now: Math.floor(Date.now() / 1000), keys: (id) => (id === 'portal-gateway' ? [key] : undefined) });
  return verified.ok ? verified.address : undefined;
}

/** What the portal may pass, and what the gateway adds (its cookie, the visitor's address). */
const FORWARDED = ['accept', 'accept-language', 'content-type', 'if-match', 'if-none-match', 'x-operation', 'x-request-id', 'user-agent', 'cookie', 'x-svc-forwarded-for'];
/** What the HTTP client itself sends on every request. */
const TRANSPORT = ['host', 'connection', 'content-length'];
const RETURNED = ['content-type', 'content-length', 'content-disposition', 'etag', 'location', 'allow', 'www-authenticate', 'x-svc-decision', 'x-request-id', 'cache-control', 'x-svc-visitor-state'];
/** What the gateway's own HTTP server adds to any answer. */
const SERVER = ['date', 'connection', 'keep-alive', 'transfer-encoding'];

/** Everything a portal might try to slip through, with the headers it may pass. */
const PORTAL_HEADERS = {
  accept: 'application/json',
  'accept-language': 'de',
  'if-none-match': '"1"',
  'x-request-id': 'portal-request-1',
  'user-agent': 'portal/1.0',
  authorization: 'Basic c3ZjYWRtaW46eA==',
  cookie: 'SVCSESSIONID=portal-supplied; JSESSIONID=portal',
  svcid: 'svcadmin',
  'x-forwarded-client-cert': 'By=spiffe://core;Hash=00;Subject="CN=svc-api"',
  forwarded: 'for=10.0.0.1;proto=https',
  'x-forwarded-for': '10.0.0.1',
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'https',
  'x-real-ip': '10.0.0.2',
  'x-foo': 'bar',
  'x-svc-decision': 'ALLOW',
  origin: 'https://evil.example',
  referer: 'https://evil.example/',
};

const names = (headers: http.IncomingHttpHeaders) => Object.keys(headers).sort();

describe('against a real core', () => {
  let core: TestServer;
  let gateway: RunningGateway;
  let seen: SeenRequest[];

  beforeAll(async () => ({ core, gateway, seen } = await startCoreAndGateway()));
  afterAll(() => stopCoreAndGateway({ core, gateway }));

  it.each([
    ['a portal user', employee('alice')],
    ['a visitor', null],
  ])('%s: only the listed headers reach the core, the address is the assertion\'s, the cookie the gateway\'s', async (_who, user) => {
    // The session exists (a visitor's comes back sealed, and the portal sends it back).
    const first = await send(gateway, '/gw/api/session', { user, visitor: 'forwarding-1', address: '203.0.113.9' });
    const visitorState = user === null ? String(first.headers['x-svc-visitor-state']) : undefined;
    const from = seen.length;
    const answer = await send(gateway, '/gw/api/session?clientid=svc-api&USER=svcadmin&Password=x&token=t&clientcred=c&OTP=123456&pending=p&keep=1', {
      user,
      visitor: 'forwarding-1',
      address: '203.0.113.9',
      headers: PORTAL_HEADERS,
      visitorState,
    });
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ session: { type: user === null ? 'ANON' : 'USER' } });
    const [req] = seen.slice(from);
    expect(req.url).toBe('/svc/resources/session?keep=1');
    for (const name of names(req.headers)) expect([...FORWARDED, ...TRANSPORT]).toContain(name);
    expect(names(req.headers).filter((name) => !TRANSPORT.includes(name))).toEqual(
      ['accept', 'accept-language', 'cookie', 'if-none-match', 'user-agent', 'x-request-id', 'x-svc-forwarded-for'],
    );
    expect(req.headers).toMatchObject({ accept: 'application/json', 'accept-language': 'de', 'x-request-id': 'portal-request-1', 'user-agent': 'portal/1.0' });
    expect(vouchedAddress(req)).toBe('203.0.113.9');
    expect(req.headers.cookie).toMatch(/^SVCSESSIONID=[A-Za-z0-9_.-]+$/);
    expect(req.headers.cookie).not.toContain('portal-supplied');
    for (const name of names(answer.headers)) expect([...RETURNED, ...SERVER]).toContain(name);
    expect(answer.headers['set-cookie']).toBeUndefined();
  });

  it("issue 29's reads pass both ways: GET …/lockout, SEARCH sorted with include=status, and the CSV export with its Content-Disposition", async () => {
    const alice = employee('alice');
    const lockout = await send(gateway, '/gw/api/contexts/employees/subjects/bob/lockout', { user: alice });
    expect(lockout.status).toBe(200);
    expect(lockout.json()).toEqual({ locked: false, lockedUntil: null, failures: 0 });
    const search = await send(gateway, '/gw/api/contexts/employees/subjects?sort=mail&order=desc&include=status', { user: alice });
    expect(search.status).toBe(200);
    expect(search.json()).toMatchObject({ results: [{ uniqueId: 'bob', status: { disabled: false, locked: false } }, { uniqueId: 'alice' }] });
    const from = seen.length;
    const csv = await send(gateway, '/gw/api/contexts/employees/subjects?sort=mail', { user: alice, headers: { accept: 'text/csv' } });
    expect(seen[from].headers.accept).toBe('text/csv');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="employees-subjects.csv"');
    expect(csv.text.split('\r\n').map((line) => line.split(',')[0])).toEqual(['uniqueId', 'alice', 'bob', '']);
    for (const name of names(csv.headers)) expect([...RETURNED, ...SERVER]).toContain(name);
    expect((await send(gateway, '/gw/api/contexts/employees/subjects?format=csv', { user: alice })).headers['content-disposition']).toMatch(/^attachment/);
  });

  it('a visitor whose address is unknown sends no X-Svc-Forwarded-For (and never the X-Forwarded-For it was given)', async () => {
    const from = seen.length;
    await send(gateway, '/gw/api/session', { user: null, visitor: 'forwarding-2', headers: { 'x-forwarded-for': '10.0.0.1' } });
    expect(seen[from].headers['x-svc-forwarded-for']).toBeUndefined();
    expect(seen[from].headers['x-forwarded-for']).toBeUndefined();
  });
});

describe("a core whose credential parameters an operator renamed (issue 25: the names are configuration, not code)", () => {
  let core: TestServer;
  let gateway: RunningGateway;
  let seen: SeenRequest[];

  beforeAll(async () => ({ core, gateway, seen } = await startCoreAndGateway({ gateway: { credentialParameters: ['login', 'Passphrase'] } })));
  afterAll(() => stopCoreAndGateway({ core, gateway }));

  test("gateway.credentialParameters are stripped beside svc's defaults, in any letter case", async () => {
    const from = seen.length;
    const answer = await send(gateway, '/gw/api/session?LOGIN=svcadmin&passphrase=x&user=bob&keep=1', { user: employee('alice'), visitor: 'renamed-1' });
    expect(answer.status).toBe(200);
    expect(seen.slice(from).map((req) => req.url).filter((url) => url.startsWith('/svc/resources/'))).toEqual(['/svc/resources/session?keep=1']);
  });
});

describe('against a capture server', () => {
  const captured: http.IncomingMessage[] = [];
  let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  let capture: http.Server;
  let origin: string;
  let gateway: RunningGateway;

  beforeAll(async () => {
    capture = http.createServer((req, res) => {
      if (req.url === '/health') return void res.end('{"status":"ok"}');
      captured.push(req);
      req.resume();
      req.on('end', () => answer(req, res));
    });
    await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', () => resolve()));
    origin = `http://127.0.0.1:${(capture.address() as AddressInfo).port}`;
    gateway = await startTestGateway([`${origin}/svc`]);
  });

  beforeEach(() => captured.splice(0));
  /** What the first answer sealed for visitor capture-1. */
  let visitorState: string | undefined;

  afterAll(async () => {
    await gateway.close();
    capture.closeAllConnections();
    await new Promise<void>((resolve) => capture.close(() => resolve()));
  });

  it("the core's headers beyond the list never reach the portal; Location is the gateway's path", async () => {
    const document = '{"subject":{"uniqueId":"zoe"}}';
    answer = (_req, res) => {
      res.writeHead(201, {
        'content-type': 'application/json',
        'content-length': String(document.length),
        etag: '"7"',
        location: `${origin}/svc/resources/contexts/customers/subjects/zoe?x=1`,
        'cache-control': 'no-store',
        'x-request-id': 'core-request-1',
        'set-cookie': ['SVCSESSIONID=core-session; Path=/; HttpOnly', 'SVCFLOW=flow-state; Path=/; HttpOnly'],
        'x-foo': 'bar',
        server: 'svc-core/1.0',
        'x-powered-by': 'Express',
        'access-control-allow-origin': '*',
        'strict-transport-security': 'max-age=1',
        'content-security-policy': "default-src 'none'",
        refresh: '0; url=https://evil.example',
        link: '<https://evil.example>; rel=preload',
        'x-internal-token': 'secret-of-the-core',
        vary: 'Accept',
      });
      res.end(document);
    };
    const body = JSON.stringify({ subject: { uniqueId: 'zoe', attributes: {} } });
    const got = await send(gateway, '/gw/api/contexts/customers/subjects', { user: null, visitor: 'capture-1', method: 'POST', body, headers: { ...PORTAL_HEADERS, 'content-type': 'application/json' } });
    expect(got.status).toBe(201);
    expect(got.text).toBe(document);
    expect(names(got.headers).filter((name) => !SERVER.includes(name))).toEqual(['cache-control', 'content-length', 'content-type', 'etag', 'location', 'x-request-id', 'x-svc-visitor-state']);
    visitorState = String(got.headers['x-svc-visitor-state']);
    expect(got.headers.location).toBe('/gw/api/contexts/customers/subjects/zoe?x=1');

    const [first] = captured.splice(0);
    for (const name of names(first.headers)) expect([...FORWARDED, ...TRANSPORT]).toContain(name);
    expect(names(first.headers).filter((name) => !TRANSPORT.includes(name))).toEqual(['accept', 'accept-language', 'content-type', 'if-none-match', 'user-agent', 'x-request-id']);
    expect(first.url).toBe('/svc/resources/contexts/customers/subjects');
  });

  it("the visitor's next request carries the core session cookie its visitor state seals, and only that", async () => {
    answer = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    await send(gateway, '/gw/api/session', { user: null, visitor: 'capture-1', address: '192.0.2.1', headers: PORTAL_HEADERS, visitorState });
    const [next] = captured.splice(0);
    expect(next.headers.cookie).toBe('SVCSESSIONID=core-session');
    expect(next.headers['x-svc-visitor-state']).toBeUndefined();
    expect(vouchedAddress({ method: next.method ?? '', url: next.url ?? '', headers: next.headers })).toBe('192.0.2.1');
    // Another visitor starts without any.
    await send(gateway, '/gw/api/session', { user: null, visitor: 'capture-2', headers: PORTAL_HEADERS });
    expect(captured.splice(0)[0].headers.cookie).toBeUndefined();
  });

  it.each([
    ['a relative path under {base}/resources', '/svc/resources/contexts/c/subjects/s', '/gw/api/contexts/c/subjects/s'],
    ['the AuthZEN path', '/svc/access/v1/evaluation', '/gw/api/access/v1/evaluation'],
    ['a path relative to {base}/', 'resources/session', '/gw/api/session'],
    ['a page of the core', '/svc/login?goto=%2Fsvc%2F', undefined],
    ['the core root', '/svc', undefined],
    ['another origin', 'https://evil.example/svc/resources/session', undefined],
    ['a path outside {base}', '/other/resources/session', undefined],
  ])('Location: %s', async (_what, location, expected) => {
    answer = (_req, res) => res.writeHead(302, { location, 'content-length': '0' }).end();
    const got = await send(gateway, '/gw/api/session', { user: null, visitor: 'capture-3' });
    captured.splice(0);
    expect(got.status).toBe(302);
    expect(got.headers.location).toBe(expected);
  });
});

/**
 * The hostile-input catalogue for the gateway (issue 16): forged, truncated, re-encoded and replayed
 * principal assertions, smuggling shapes, paths leaving /api and credentials the portal must not
 * pass. The runner adds: nothing refused reached the core, both processes healthy, store unchanged.
 */
import { createHmac } from 'node:crypto';
import { signPrincipalAssertion } from '../../common/src/assertion/principal-assertion';
import { employee, PORTAL, PORTAL_SECRET } from '../gateway/gateway-helpers';
import { rawRequest } from './raw-http';
import type { Outcome } from './core-cases';

export interface GatewayTarget {
  /** `http://host:port` of the gateway */
  url: string;
  /** What the core received since the row began (method and raw URL, headers). */
  seenByCore: () => { url: string; headers: Record<string, unknown> }[];
}

export interface GatewayCase {
  group: string;
  kind: string;
  send: (t: GatewayTarget) => Promise<Outcome>;
  status: number | number[];
  code?: string;
  /** The row is refused before the core: nothing may reach it. */
  reachesCore: boolean;
  check?: (o: Outcome, t: GatewayTarget) => void;
}

const SESSION = '/gw/api/session';

const sign = (method: string, pathAndQuery: string, overrides: Partial<Parameters<typeof signPrincipalAssertion>[0]> = {}) =>
  signPrincipalAssertion({ portalId: PORTAL, secret: PORTAL_SECRET, user: employee('bob'), visitor: 'hostile-visitor', address: '203.0.113.9', method, pathAndQuery, ...overrides });

async function raw(t: GatewayTarget, head: string[], body = ''): Promise<Outcome> {
  const answer = await rawRequest(t.url, Buffer.from(head.join('\r\n') + '\r\n\r\n' + body, 'latin1'));
  return { status: answer.status, code: answer.json?.code as string | undefined, location: answer.headers.location ?? null, body: answer.body };
}

/** A GET of `path` carrying `assertion` as its X-Svc-Principal header. */
const withAssertion = (t: GatewayTarget, assertion: string, path = SESSION) =>
  raw(t, [`GET ${path} HTTP/1.1`, 'Host: x', 'Accept: application/json', `X-Svc-Principal: ${assertion}`, 'Connection: close']);

/** The fields of a v2 assertion, to rebuild one changed in one place. */
const fields = (assertion: string) => assertion.split('.');

/** Signs fields the signer itself would refuse to produce, as a careless or hostile portal might. */
function resign(f: string[], method: string, pathAndQuery: string): string {
  const unsigned = f.slice(0, 7).join('.');
  const sig = createHmac('sha256', Buffer.from(PORTAL_SECRET, 'utf8')).update(`${unsigned}|${method}|${pathAndQuery}`).digest('base64url');
  return `${unsigned}.${sig}`;
}

export const GATEWAY_CASES: GatewayCase[] = [
  { group: 'Assertion', kind: 'missing', send: (t) => raw(t, [`GET ${SESSION} HTTP/1.1`, 'Host: x', 'Connection: close']), status: 401, code: 'invalid_assertion', reachesCore: false },
  { group: 'Assertion', kind: 'a v1 assertion', send: (t) => withAssertion(t, ['v1', ...fields(sign('GET', SESSION)).slice(1)].join('.')), status: 401, code: 'invalid_assertion', reachesCore: false },
  { group: 'Assertion', kind: 'forged (signed with another secret)', send: (t) => withAssertion(t, sign('GET', SESSION, { secret: 'YW5vdGhlci1wb3J0YWwtc2VjcmV0LW9mLWVub3VnaC1sZW5ndGg' })), status: 401, code: 'invalid_assertion', reachesCore: false },
  { group: 'Assertion', kind: 'truncated signature', send: (t) => withAssertion(t, sign('GET', SESSION).slice(0, -5)), status: 401, code: 'invalid_assertion', reachesCore: false },
  { group: 'Assertion', kind: 'signature re-encoded as padded base64', send: (t) => { const f = fields(sign('GET', SESSION)); f[7] = Buffer.from(f[7], 'base64url').toString('base64'); return withAssertion(t, f.join('.')); }, status: 401, code: 'invalid_assertion', reachesCore: false },
  { group: 'Assertion', kind: 'user swapped after signing (alice for bob)', send: (t) => { const f = fields(sign('GET', SESSION)); f[2] = Buffer.from('employees/alice').toString('base64url'); return withAssertion(t, f.join('.')); }, status: 401, code: 'invalid_assertion', reachesCore: false },
  { group: 'Assertion', kind: 'an unknown portal', send: (t) => withAssertion(t, sign('GET', SESSION, { portalId: 'evil-portal' })), status: 401, code: 'invalid_assertion', reachesCore: false },
  { group: 'Assertion', kind: 'stale (two minutes old)', send: (t) => withAssertion(t, sign('GET', SESSION, { now: Math.floor(Date.now() / 1000) - 120 })), status: 401, code: 'invalid_assertion', reachesCore: false },
  { group: 'Assertion', kind: 'from the future (two minutes ahead)', send: (t) => withAssertion(t, sign('GET', SESSION, { now: Math.floor(Date.now() / 1000) + 120 })), status: 401, code: 'invalid_assertion', reachesCore: false },
  { group: 'Assertion', kind: 'signed for another path', send: (t) => withAssertion(t, sign('GET', '/gw/api/contexts'), SESSION), status: 401, code: 'invalid_assertion', reachesCore: false },
  { group: 'Assertion', kind: 'signed for another method', send: (t) => withAssertion(t, sign('POST', SESSION)), status: 401, code: 'invalid_assertion', reachesCore: false },
  { group: 'Assertion', kind: 'signed for another query', send: (t) => withAssertion(t, sign('GET', `${SESSION}?a=1`), `${SESSION}?a=2`), status: 401, code: 'invalid_assertion', reachesCore: false },
  { group: 'Assertion', kind: 'an address that is not an IP address (validly signed)', send: (t) => { const f = fields(sign('GET', SESSION)); f[4] = Buffer.from('1.2.3.4, 5.6.7.8').toString('base64url'); return withAssertion(t, resign(f, 'GET', SESSION)); }, status: 401, code: 'invalid_assertion', reachesCore: false },
  { group: 'Assertion', kind: 'a user without its context (validly signed)', send: (t) => { const f = fields(sign('GET', SESSION)); f[2] = Buffer.from('alice').toString('base64url'); return withAssertion(t, resign(f, 'GET', SESSION)); }, status: 401, code: 'invalid_assertion', reachesCore: false },
  { group: 'Assertion', kind: 'two X-Svc-Principal headers', send: (t) => { const a = sign('GET', SESSION); return raw(t, [`GET ${SESSION} HTTP/1.1`, 'Host: x', `X-Svc-Principal: ${a}`, `X-Svc-Principal: ${sign('GET', SESSION, { user: employee('alice') })}`, 'Connection: close']); }, status: 401, code: 'invalid_assertion', reachesCore: false },
  { group: 'Assertion', kind: 'an oversized assertion (12 KiB)', send: (t) => withAssertion(t, `v2.${'A'.repeat(12 * 1024)}`), status: [401, 431], reachesCore: false },
  {
    group: 'Assertion',
    kind: 'replayed',
    send: async (t) => {
      const assertion = sign('GET', SESSION, { user: null });
      expect((await withAssertion(t, assertion)).status).toBe(200);
      t.seenByCore().length = 0;
      return withAssertion(t, assertion);
    },
    status: 401,
    code: 'invalid_assertion',
    reachesCore: false,
  },
  // Smuggling shapes through the gateway
  { group: 'Smuggling', kind: 'Content-Length with Transfer-Encoding', send: (t) => raw(t, ['POST /gw/api/contexts/customers/subjects HTTP/1.1', 'Host: x', `X-Svc-Principal: ${sign('POST', '/gw/api/contexts/customers/subjects', { user: null })}`, 'Content-Type: application/json', 'Content-Length: 5', 'Transfer-Encoding: chunked', 'Connection: close'], '0\r\n\r\nGET /svc/config HTTP/1.1\r\nHost: x\r\n\r\n'), status: 400, reachesCore: false },
  { group: 'Smuggling', kind: 'duplicated Content-Length', send: (t) => raw(t, ['POST /gw/api/contexts/customers/subjects HTTP/1.1', 'Host: x', 'Content-Type: application/json', 'Content-Length: 2', 'Content-Length: 60', 'Connection: close'], '{}'), status: 400, reachesCore: false },
  { group: 'Smuggling', kind: 'chunked with a smuggled second request', send: (t) => raw(t, ['POST /gw/api/contexts/customers/subjects HTTP/1.1', 'Host: x', 'Content-Type: application/json', 'Transfer-Encoding: chunked', 'Connection: close'], '0\r\n\r\nGET /svc/config HTTP/1.1\r\nHost: x\r\n\r\n'), status: [400, 401], reachesCore: false },
  { group: 'Smuggling', kind: 'a space before the colon of Transfer-Encoding', send: (t) => raw(t, ['POST /gw/api/contexts/customers/subjects HTTP/1.1', 'Host: x', 'Transfer-Encoding : chunked', 'Content-Length: 2', 'Connection: close'], '{}'), status: 400, reachesCore: false },
  // Paths and parameters
  { group: 'Gateway paths', kind: 'dot segments out of /api', send: (t) => withAssertion(t, sign('GET', '/gw/api/../../svc/config'), '/gw/api/../../svc/config'), status: [401, 404], reachesCore: false },
  { group: 'Gateway paths', kind: 'encoded dot segments out of /api', send: (t) => withAssertion(t, sign('GET', '/gw/api/%2e%2e/%2e%2e/svc/config'), '/gw/api/%2e%2e/%2e%2e/svc/config'), status: [400, 404], reachesCore: false },
  { group: 'Gateway paths', kind: 'a malformed percent-escape (%E0%A4%A) in the path', send: (t) => withAssertion(t, sign('GET', '/gw/api/contexts/employees/subjects/%E0%A4%A'), '/gw/api/contexts/employees/subjects/%E0%A4%A'), status: 400, code: 'invalid_request', reachesCore: false },
  { group: 'Gateway paths', kind: 'the core\'s login page through the gateway', send: (t) => withAssertion(t, sign('GET', '/gw/login'), '/gw/login'), status: 404, reachesCore: false },
  {
    group: 'Gateway paths',
    kind: 'credential parameters in the query are removed',
    send: (t) => withAssertion(t, sign('GET', `${SESSION}?password=x&clientcred=y&user=alice&token=z&clientid=svc-api`), `${SESSION}?password=x&clientcred=y&user=alice&token=z&clientid=svc-api`),
    status: 200,
    reachesCore: true,
    check: (_o, t) => expect(t.seenByCore().map((r) => r.url).join(' ')).not.toMatch(/password|clientcred|user=|token|clientid/),
  },
  {
    group: 'Gateway paths',
    kind: 'spoofed credentials headers from the portal',
    send: (t) => raw(t, [`GET ${SESSION} HTTP/1.1`, 'Host: x', `X-Svc-Principal: ${sign('GET', SESSION)}`, 'Cookie: SVCSESSIONID=stolen', 'Authorization: Basic YWRtaW46YWRtaW4=', 'svcid: svcadmin', 'X-Forwarded-For: 10.0.0.1', 'Forwarded: for=10.0.0.1', 'X-Forwarded-Client-Cert: Hash=x', 'Connection: close']),
    status: 200,
    reachesCore: true,
    check: (_o, t) => {
      for (const request of t.seenByCore()) {
        expect(Object.keys(request.headers)).not.toEqual(expect.arrayContaining(['authorization']));
        expect(request.headers).not.toHaveProperty('svcid');
        expect(request.headers).not.toHaveProperty('forwarded');
        expect(request.headers).not.toHaveProperty('x-forwarded-client-cert');
        expect(String(request.headers.cookie ?? '')).not.toContain('stolen');
        expect(request.headers).not.toHaveProperty('x-forwarded-for');
        // The address the gateway vouches for is the assertion's, never the one the portal's request named.
        expect(String(request.headers['x-svc-forwarded-for'] ?? '')).not.toContain(Buffer.from('10.0.0.1').toString('base64url'));
      }
    },
  },
];

/**
 * The visitor's address (SPEC section 9): the assertion carries it, the gateway sends it to the core as
 * X-Svc-Forwarded-For, signed with a key derived from its client secret, and the core (which trusts no
 * proxy: the demo's trustProxy is empty) counts lockout pairs, per-address limits and registrations by
 * it and names it in its audit lines. So one script failing logins through a portal locks out its own
 * address, never every portal user; and a local process that sends the core an address of its choice
 * (X-Forwarded-For, or an X-Svc-Forwarded-For it cannot sign) still counts as itself (issue 24, item 5).
 */
import { forwardedForKey, signForwardedFor } from '../../common/src/assertion/forwarded-for';
import type { RunningGateway } from '../../gateway/src/index';
import { TEST_CREDENTIALS, startTestServer, type TestServer } from '../helpers/core-server';
import { send as sendToCore, type Sent } from '../helpers/http';
import { logLines } from '../helpers/log-lines';
import { login } from '../helpers/login';
import { portalLogin, send, startCoreAndGateway, startTestGateway, stopCoreAndGateway } from './gateway-helpers';

const { users } = TEST_CREDENTIALS;
const ATTACKER = '203.0.113.66';
const ELSEWHERE = '198.51.100.7';
const coreLog = logLines();
let core: TestServer;
let gateway: RunningGateway;

beforeAll(async () => ({ core, gateway } = await startCoreAndGateway({ core: { logger: coreLog.logger } })));
afterAll(() => stopCoreAndGateway({ core, gateway }));

/** 30 names: bob in four spellings (so that the pair (bob, attacker) locks), alice in two, and 24 unknown ones. */
const NAMES = ['bob', 'BOB', 'bob@example.com', 'Bob@Example.com', 'alice', 'alice@example.com', ...Array.from({ length: 24 }, (_, i) => `guess-${i}`)];

describe('failed logins through the gateway count against the visitor, not the gateway', () => {
  it('100 failures from one visitor address over 30 names get that address 429, and lock nothing elsewhere', async () => {
    for (let i = 0; i < 100; i++) {
      const failed = await portalLogin(gateway, NAMES[i % NAMES.length], `wrong-password-${i}`, { visitor: `script-${i}`, address: ATTACKER });
      expect([i, failed.status]).toEqual([i, 401]);
    }
    const throttled = await portalLogin(gateway, 'bob', users.bob, { visitor: 'script-100', address: ATTACKER });
    expect(throttled.status).toBe(429);
    expect(throttled.json()).toMatchObject({ status: 429, code: 'too_many_requests' });
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);

    // bob, and alice, log in at once from another address; so does a visitor whose address is unknown.
    expect((await portalLogin(gateway, 'bob', users.bob, { visitor: 'bob-at-home', address: ELSEWHERE })).status).toBe(200);
    expect((await portalLogin(gateway, 'alice@example.com', users.alice, { visitor: 'alice-at-work', address: '2001:db8::1' })).status).toBe(200);
    expect((await portalLogin(gateway, 'bob', users.bob, { visitor: 'bob-somewhere' })).status).toBe(200);
  });

  it("the core's audit lines name the visitor addresses", () => {
    const logins = coreLog.audits().filter((a) => a.event === 'login');
    const failures = logins.filter((a) => a.outcome === 'failure');
    expect(failures.filter((a) => a.peer === ATTACKER)).toHaveLength(101);
    expect(failures.filter((a) => a.peer === ATTACKER && a.reason === 'throttled')).toHaveLength(1);
    expect(logins.filter((a) => a.outcome === 'success').map((a) => a.peer)).toEqual([ELSEWHERE, '2001:db8::1', expect.stringMatching(/127\.0\.0\.1$/)]);
    // The pair (bob, attacker) locked after five failures; the lock names the attacker's address.
    expect(coreLog.audits().filter((a) => a.event === 'lockout' && a.peer === ATTACKER && a.subject === 'employees/bob').length).toBeGreaterThan(0);
  });
});

describe('registrations through the gateway are throttled per visitor address', () => {
  const register = (uniqueId: string, address: string) =>
    send(gateway, '/gw/api/contexts/customers/subjects', {
      user: null,
      visitor: `registrant-${uniqueId}`,
      address,
      method: 'POST',
      body: JSON.stringify({ subject: { uniqueId, attributes: { mail: `${uniqueId}@customer.example.org`, password: `Pass-for-${uniqueId}-1` } } }),
      headers: { 'content-type': 'application/json' },
    });

  it('the 11th registration within the hour from one address is 429; another address still registers', async () => {
    const limit = core.core.config.settings.registrationLimit.perAddress;
    for (let i = 0; i < limit; i++) expect((await register(`customer-${i}`, '192.0.2.10')).status).toBe(201);
    const refused = await register('customer-over', '192.0.2.10');
    expect(refused.status).toBe(429);
    expect((await register('customer-other', '192.0.2.11')).status).toBe(201);
    const writes = coreLog.audits().filter((a) => a.event === 'subject_write' && a.reason === 'create');
    expect(writes.filter((a) => a.peer === '192.0.2.10')).toHaveLength(limit);
  });
});

describe("a core whose gateway client may not assert principals", () => {
  it("ignores the gateway's X-Svc-Forwarded-For and sees the gateway's own address", async () => {
    const untrustingLog = logLines();
    const untrusting = await startTestServer({
      logger: untrustingLog.logger,
      configure: (doc) => {
        const gatewayClient = (doc.clients as Array<Record<string, unknown>>).find((c) => c.id === 'portal-gateway')!;
        gatewayClient.allowPrincipalAssertion = false;
        gatewayClient.authenticators = ['employees-password', 'customers-password'];
      },
    });
    const gw = await startTestGateway([untrusting.baseUrl]);
    try {
      expect((await portalLogin(gw, 'bob', users.bob, { address: ELSEWHERE })).status).toBe(200);
      const [line] = untrustingLog.audits().filter((a) => a.event === 'login');
      expect(line.peer).toMatch(/127\.0\.0\.1$/);
      expect(untrustingLog.audits().filter((a) => a.event === 'forwarded_for_ignored')[0]).toMatchObject({ reason: 'unknown_client', client: 'portal-gateway', peer: expect.stringMatching(/127\.0\.0\.1$/) });
    } finally {
      await gw.close();
      await untrusting.stop();
    }
  });
});

describe('straight to the core from a local process (issue 24, item 5)', () => {
  const directLog = logLines();
  let direct: TestServer;
  const GATEWAY_KEY = forwardedForKey(TEST_CREDENTIALS.clients['portal-gateway']);
  const API_KEY = forwardedForKey(TEST_CREDENTIALS.clients['svc-api']);
  const invented = (i: number) => `198.51.${100 + Math.floor(i / 250)}.${(i % 250) + 1}`;
  const attempt = (user: string, password: string, headers: Record<string, string> = {}): Promise<Sent> =>
    login(direct.baseUrl, { clientid: 'svc-web', user, password }, { headers: { accept: 'application/json', ...headers } });
  /** An X-Svc-Forwarded-For for POST {base}/login as the gateway would sign it (or with another key, client, path or time). */
  const vouch = (address: string, options: { key?: Buffer; clientId?: string; path?: string; now?: number } = {}) =>
    signForwardedFor({ clientId: options.clientId ?? 'portal-gateway', key: options.key ?? GATEWAY_KEY, address, method: 'POST', pathAndQuery: options.path ?? '/svc/login', now: options.now });

  beforeEach(async () => {
    direct = await startTestServer({ logger: directLog.logger });
  });
  afterEach(() => direct.stop());

  it('six wrong passwords, each with an invented X-Forwarded-For, lock the pair: the right password then fails', async () => {
    for (let i = 0; i < 6; i++) expect((await attempt('bob', `wrong-${i}`, { 'x-forwarded-for': invented(i) })).status).toBe(401);
    const right = await attempt('bob', users.bob, { 'x-forwarded-for': invented(6) });
    expect([right.status, right.json?.code]).toEqual([401, 'login_failed']);
    const lock = directLog.audits().find((a) => a.event === 'lockout' && a.subject === 'employees/bob');
    expect(String(lock?.peer)).toMatch(/127\.0\.0\.1$/);
  });

  it('100 failures with invented addresses get this process 429', async () => {
    for (let i = 0; i < 100; i++) expect([i, (await attempt(`guess-${i % 30}`, `wrong-${i}`, { 'x-forwarded-for': invented(i) })).status]).toEqual([i, 401]);
    const throttled = await attempt('alice', users.alice, { 'x-forwarded-for': invented(100) });
    expect([throttled.status, throttled.json?.code]).toEqual([429, 'too_many_requests']);
  });

  it('the registration throttle counts this process, whatever X-Forwarded-For says', async () => {
    const limit = direct.core.config.settings.registrationLimit.perAddress;
    const register = (i: number) =>
      sendToCore(`${direct.baseUrl}/resources/contexts/customers/subjects`, {
        headers: { accept: 'application/json', 'x-forwarded-for': invented(i) },
        json: { subject: { uniqueId: `local-${i}`, attributes: { mail: `local-${i}@customer.example.org`, password: `Pass-for-local-${i}-1` } } },
      });
    for (let i = 0; i < limit; i++) expect((await register(i)).status).toBe(201);
    expect((await register(limit)).status).toBe(429);
  });

  it.each([
    ['signed with a key that is not the gateway client\'s', () => vouch('198.51.100.77', { key: forwardedForKey('bm90LXRoZS1nYXRld2F5LXNlY3JldC1qdXN0LWEtZ3Vlc3MtMTIz') }), 'bad_signature'],
    ['signed by a client without allowPrincipalAssertion, with its own secret', () => vouch('198.51.100.77', { key: API_KEY, clientId: 'svc-api' }), 'unknown_client'],
    ['signed for another path', () => vouch('198.51.100.77', { path: '/svc/logout' }), 'bad_signature'],
    ['signed 61 s ago', () => vouch('198.51.100.77', { now: Math.floor(Date.now() / 1000) - 61 }), 'stale'],
    ['not signed at all', () => '198.51.100.77', 'malformed'],
  ])('an X-Svc-Forwarded-For %s counts for nothing, and is audited', async (_what, header, reason) => {
    for (let i = 0; i < 5; i++) expect((await attempt('bob', `wrong-${i}`, { 'x-svc-forwarded-for': header() })).status).toBe(401);
    // The five failures counted against this process's own address: the pair is locked here.
    expect((await attempt('bob', users.bob)).status).toBe(401);
    const ignored = directLog.audits().filter((a) => a.event === 'forwarded_for_ignored');
    expect(ignored.at(-1)).toMatchObject({ outcome: 'failure', reason, peer: expect.stringMatching(/127\.0\.0\.1$/) });
    expect(directLog.audits().filter((a) => a.event === 'login' && a.peer === '198.51.100.77')).toEqual([]);
  });

  it("one signed with the gateway client's key counts the address it names, whatever the peer's address", async () => {
    for (let i = 0; i < 5; i++) expect((await attempt('bob', `wrong-${i}`, { 'x-svc-forwarded-for': vouch('203.0.113.200') })).status).toBe(401);
    expect((await attempt('bob', users.bob, { 'x-svc-forwarded-for': vouch('203.0.113.200') })).status).toBe(401);
    // From this process's own address, and from another vouched one, bob still logs in.
    expect((await attempt('bob', users.bob)).status).toBe(200);
    expect((await attempt('bob', users.bob, { 'x-svc-forwarded-for': vouch('203.0.113.201') })).status).toBe(200);
    expect(directLog.audits().filter((a) => a.event === 'lockout' && a.subject === 'employees/bob').map((a) => a.peer)).toContain('203.0.113.200');
  });
});

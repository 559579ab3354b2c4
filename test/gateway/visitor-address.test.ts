/**
 * The visitor's address (SPEC section 9): the assertion carries it, the gateway sends it to the core as
 * X-Forwarded-For, and the core, which trusts the gateway's address (the demo's trustProxy), counts
 * lockout pairs, per-address limits and registrations by it and names it in its audit lines. So one
 * script failing logins through a portal locks out its own address, never every portal user.
 */
import type { RunningGateway } from '../../gateway/src/index';
import { TEST_CREDENTIALS, startTestServer, type TestServer } from '../helpers/core-server';
import { logLines } from '../helpers/log-lines';
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
    const limit = core.core.config.global['registration.perAddress'];
    for (let i = 0; i < limit; i++) expect((await register(`customer-${i}`, '192.0.2.10')).status).toBe(201);
    const refused = await register('customer-over', '192.0.2.10');
    expect(refused.status).toBe(429);
    expect((await register('customer-other', '192.0.2.11')).status).toBe(201);
    const writes = coreLog.audits().filter((a) => a.event === 'subject_write' && a.reason === 'create');
    expect(writes.filter((a) => a.peer === '192.0.2.10')).toHaveLength(limit);
  });
});

describe('a core that does not trust the gateway', () => {
  it("ignores the X-Forwarded-For and sees the gateway's own address", async () => {
    const untrustingLog = logLines();
    const untrusting = await startTestServer({ logger: untrustingLog.logger, configure: (doc) => ((doc.server as Record<string, unknown>).trustProxy = []) });
    const gw = await startTestGateway([untrusting.baseUrl]);
    try {
      expect((await portalLogin(gw, 'bob', users.bob, { address: ELSEWHERE })).status).toBe(200);
      const [line] = untrustingLog.audits().filter((a) => a.event === 'login');
      expect(line.peer).toMatch(/127\.0\.0\.1$/);
    } finally {
      await gw.close();
      await untrusting.stop();
    }
  });
});

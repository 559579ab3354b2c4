/**
 * Regression for issue 12: a visitor registers `alice` in `customers`, logs in to the portal, and
 * must never act as `employees/alice` (an admin). Assertions carry `contextId/uniqueId`; the gateway's
 * client principal authenticators match it in their own context, exactly.
 */
import type { RunningGateway } from '../../gateway/src/index';
import type { TestServer } from '../helpers/core-server';
import { logLines } from '../helpers/log-lines';
import { employee, portalLogin, send, startCoreAndGateway, startTestGateway, stopCoreAndGateway } from './gateway-helpers';

const CUSTOMER_ALICE = { contextId: 'customers', uniqueId: 'alice' };
const PASSWORD = 'Customer-alice-9';
const coreLog = logLines();
let core: TestServer;
let gateway: RunningGateway;

beforeAll(async () => ({ core, gateway } = await startCoreAndGateway({ core: { logger: coreLog.logger } })));
afterAll(() => stopCoreAndGateway({ core, gateway }));

interface SessionAnswer {
  session: { type: string; principal: { uniqueId: string; contextId: string } | null; level: number };
  roles?: string[];
}

const UPDATE_BOB = JSON.stringify({ subject: { attributes: { roles: ['admin'] } } });
const CREATE_MALLORY = JSON.stringify({ subject: { uniqueId: 'mallory', attributes: { mail: 'mallory@example.com' } } });

/** What employees/alice, an admin of `employees`, may do: [what, method, path, operation, body]. */
const ADMIN_POWERS: [string, string, string, string, string | undefined][] = [
  ['READ employees/bob', 'GET', '/gw/api/contexts/employees/subjects/bob', 'READ', undefined],
  ['SEARCH employees', 'GET', '/gw/api/contexts/employees/subjects?search=b', 'SEARCH', undefined],
  ['UPDATE employees/bob (make him an admin)', 'PUT', '/gw/api/contexts/employees/subjects/bob', 'UPDATE', UPDATE_BOB],
  ['CREATE in employees', 'POST', '/gw/api/contexts/employees/subjects', 'CREATE', CREATE_MALLORY],
  ['DELETE employees/bob', 'DELETE', '/gw/api/contexts/employees/subjects/bob', 'DELETE', undefined],
  ['READ employees/alice', 'GET', '/gw/api/contexts/employees/subjects/alice', 'READ', undefined],
];

describe('customers/alice is never employees/alice', () => {
  it('a visitor registers alice in customers through the gateway', async () => {
    const body = JSON.stringify({ subject: { uniqueId: 'alice', attributes: { mail: 'alice@customer.example.org', givenName: 'Alice', password: PASSWORD } } });
    const created = await send(gateway, '/gw/api/contexts/customers/subjects', { user: null, visitor: 'visitor-alice', address: '203.0.113.50', method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe('/gw/api/contexts/customers/subjects/alice');
  });

  it('logs in through POST {gw}/api/login as customers/alice, with her roles', async () => {
    const login = await portalLogin(gateway, 'alice', PASSWORD, { visitor: 'visitor-alice', address: '203.0.113.50' });
    expect(login.status).toBe(200);
    expect(login.json<SessionAnswer>()).toMatchObject({ session: { type: 'USER', principal: { contextId: 'customers', uniqueId: 'alice' }, level: 2 }, roles: ['user'] });
  });

  it.each(ADMIN_POWERS)('as customers/alice, %s is refused (employees/alice may)', async (_what, method, path, operation, body) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    // employees/alice may: asked as a check (form 2, the real method), so that nothing is done.
    const check = `${path}${path.includes('?') ? '&' : '?'}isAllowed=${operation}`;
    expect((await send(gateway, check, { user: employee('alice'), method, body, headers })).headers['x-svc-decision']).toBe('ALLOW');
    for (const asked of [check, path]) {
      const refused = await send(gateway, asked, { user: CUSTOMER_ALICE, method, body, headers });
      expect([asked, refused.status, refused.headers['x-svc-decision']]).toEqual([asked, 401, 'DENY']);
    }
  });

  it('as customers/alice, the check forms and AuthZEN say DENY for bob', async () => {
    const authz = await send(gateway, '/gw/api/authz/employees/subjects/bob', { user: CUSTOMER_ALICE, method: 'DELETE' });
    expect(authz.headers['x-svc-decision']).toBe('DENY');
    const body = JSON.stringify({ action: { name: 'DELETE' }, resource: { type: 'subject', id: 'employees/bob' } });
    const evaluation = await send(gateway, '/gw/api/access/v1/evaluation', { user: CUSTOMER_ALICE, method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(evaluation.json()).toMatchObject({ decision: false });
  });

  it('nothing of employees changed', async () => {
    const bob = await send(gateway, '/gw/api/contexts/employees/subjects/bob', { user: employee('alice') });
    expect(bob.json()).toMatchObject({ subject: { uniqueId: 'bob', attributes: { roles: ['user'] } } });
    expect((await send(gateway, '/gw/api/contexts/employees/subjects/mallory', { user: employee('alice') })).status).toBe(404);
  });

  it('an assertion naming customers/alice yields a customers session, even logged in anew by the gateway', async () => {
    expect((await send(gateway, '/gw/api/logout', { user: CUSTOMER_ALICE, method: 'POST' })).status).toBe(204);
    const fresh = await startTestGateway([core.baseUrl]);
    try {
      for (const gw of [gateway, fresh]) {
        const session = await send(gw, '/gw/api/session', { user: CUSTOMER_ALICE });
        expect(session.json<SessionAnswer>().session).toMatchObject({ type: 'USER', principal: { contextId: 'customers', uniqueId: 'alice' }, level: 1 });
      }
    } finally {
      await fresh.close();
    }
  });

  it.each([
    ['employees/ALICE', { contextId: 'employees', uniqueId: 'ALICE' }],
    ["alice's employee mail", { contextId: 'employees', uniqueId: 'alice@example.com' }],
    ["alice's customer mail", { contextId: 'customers', uniqueId: 'alice@customer.example.org' }],
    ['customers/ALICE', { contextId: 'customers', uniqueId: 'ALICE' }],
    ['a context that does not exist', { contextId: 'partners', uniqueId: 'alice' }],
  ])('an assertion naming %s is refused: 401 login_failed, no core session', async (_what, user) => {
    const before = coreLog.audits().filter((a) => a.event === 'login' && a.outcome === 'success').length;
    const answer = await send(gateway, '/gw/api/contexts/employees/subjects/bob', { user });
    expect(answer.status).toBe(401);
    expect(answer.json()).toMatchObject({ code: 'login_failed' });
    expect(coreLog.audits().filter((a) => a.event === 'login' && a.outcome === 'success')).toHaveLength(before);
  });
});

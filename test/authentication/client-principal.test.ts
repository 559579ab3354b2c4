/**
 * The client principal authenticator of SPEC section 4: `user` is `contextId/uniqueId`, accepted only
 * by the authenticator of that context and only for that exact uniqueId. Regression for issue 12:
 * `alice` registered in `customers` was asserted as `alice` and acted as `employees/alice`, an admin.
 */
import { ClientSealer } from '../../client/src/clientcred/sealer';
import { buildConfig, ConfigError } from '../../server/src/config/load';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send, sessionOf } from '../helpers/http';
import { login, sealedParams } from '../helpers/login';

const { clients } = TEST_CREDENTIALS;
const portal = new ClientSealer('portal-gateway', clients['portal-gateway']);
let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  base = server.baseUrl;
  // Registered as a visitor would: a customer whose uniqueId is an employee's, and her own mail.
  const registered = await send(`${base}/resources/contexts/customers/subjects`, {
    json: { subject: { uniqueId: 'alice', attributes: { mail: 'alice@customer.example.org', password: 'Customer-alice-9' } } },
  });
  expect(registered.status).toBe(201);
  await server.core.subjects.create('customers', 'dora', { mail: 'dora@example.org', disabled: 'true', password: 'Dora-pass-123' }, 'admin');
});
afterAll(() => server.stop());

const assert = (user: string) => login(base, sealedParams(portal, { user }));

describe('client principal: contextId/uniqueId, exactly', () => {
  it('customers/alice is the customer, never the employee', async () => {
    const sent = await assert('customers/alice');
    expect(sent.status).toBe(200);
    expect(sessionOf(sent)).toMatchObject({ type: 'USER', clientId: 'portal-gateway', principal: { contextId: 'customers', uniqueId: 'alice' }, level: 1 });
    // What employees/alice (admin) may do, customers/alice may not.
    const cookie = sent.cookie!;
    for (const [method, path] of [
      ['GET', 'contexts/employees/subjects/bob'],
      ['GET', 'contexts/employees/subjects?search=b'],
      ['DELETE', 'contexts/employees/subjects/bob'],
      ['GET', 'contexts/employees/subjects/alice'],
    ]) {
      const refused = await send(`${base}/resources/${path}`, { method, cookie });
      expect([method, path, refused.status, refused.headers.get('x-svc-decision')]).toEqual([method, path, 401, 'DENY']);
    }
    expect((await send(`${base}/resources/contexts/customers/subjects/alice`, { cookie })).status).toBe(200);
    expect((await send(`${base}/resources/contexts/employees/subjects/bob`)).status).toBe(401);
  });

  it('employees/alice is the employee', async () => {
    expect(sessionOf(await assert('employees/alice'))).toMatchObject({ principal: { contextId: 'employees', uniqueId: 'alice' } });
  });

  it.each([
    ['a bare uniqueId (the v1 form)', 'alice'],
    ['another letter case', 'employees/ALICE'],
    ['another letter case in customers', 'customers/Alice'],
    ["the employee's mail (an authenid value)", 'employees/alice@example.com'],
    ["the customer's mail", 'customers/alice@customer.example.org'],
    ['an unknown context', 'partners/alice'],
    ['a context id in another case', 'Employees/alice'],
    ['an unknown subject', 'employees/nobody'],
    ['a disabled subject', 'customers/dora'],
    ['an empty context', '/alice'],
    ['two slashes', 'employees/alice/x'],
  ])('refuses %s: 401 login_failed', async (_what, user) => {
    const sent = await assert(user);
    expect(sent.status).toBe(401);
    expect(sent.json).toMatchObject({ code: 'login_failed' });
  });

  it('refuses an unsealed user, and a client without allowPrincipalAssertion', async () => {
    expect((await login(base, { clientid: 'portal-gateway', user: 'employees/alice' })).json).toMatchObject({ code: 'invalid_client' });
    const api = new ClientSealer('svc-api', clients['svc-api']);
    expect((await login(base, sealedParams(api, { user: 'employees/alice' }))).json).toMatchObject({ code: 'login_failed' });
  });
});

describe('configuration', () => {
  it('refuses two client principal authenticators of one client for one context', () => {
    const doc = structuredClone(server.core.config) as unknown as Record<string, unknown>;
    const authenticators = doc.authenticators as Record<string, unknown>[];
    authenticators.push({ id: 'employees-principal-2', kind: 'Token', variant: 'clientPrincipal', sessionType: 'USER', context: 'employees' });
    const gateway = (doc.clients as { id: string; authenticators: string[] }[]).find((c) => c.id === 'portal-gateway')!;
    gateway.authenticators.push('employees-principal-2');
    let problems: string[] = [];
    try {
      buildConfig(doc, {});
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems = error.problems;
    }
    expect(problems).toContainEqual(expect.stringMatching(/second client principal authenticator for context "employees"/));
  });
});

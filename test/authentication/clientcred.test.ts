import { randomBytes } from 'node:crypto';
import { ClientSealer } from '../../client/src/clientcred/sealer';
import { unixSeconds } from '../../common/src/clientcred/format';
import { MemorySessionStore } from '../../server/src/sessions/memory-session-store';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { sessionOf, type Sent } from '../helpers/http';
import { login, sealedParams } from '../helpers/login';

const { users, clients } = TEST_CREDENTIALS;
const store = new MemorySessionStore({ sweepIntervalMs: 0 });
let server: TestServer;
let base: string;
const api = new ClientSealer('svc-api', clients['svc-api']);
const portal = new ClientSealer('portal-gateway', clients['portal-gateway']);

beforeAll(async () => {
  server = await startTestServer({ sessionStore: store });
  base = server.baseUrl;
});
afterAll(() => server.stop());

/** Each refusal is the same 401 invalid_client and costs no hash computation. */
async function expectInvalidClient(params: Record<string, string>): Promise<Sent> {
  const before = server.hasher.stats.started;
  const sent = await login(base, params);
  expect(sent.status).toBe(401);
  expect(sent.json).toMatchObject({ code: 'invalid_client', detail: 'The client could not be validated.' });
  expect(server.hasher.stats.started).toBe(before);
  return sent;
}

async function auditCount(reason: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const match = new RegExp(`svc_audit_events_total\\{event="client_validation",outcome="failure",reason="${reason}"\\} (\\d+)`).exec(text);
  return match ? Number(match[1]) : 0;
}

it('a valid sealed login succeeds, and its nonce is kept in the session store', async () => {
  const before = store.stats().nonces;
  const sent = await login(base, sealedParams(api, { user: 'alice', password: users.alice }));
  expect(sessionOf(sent)).toMatchObject({ type: 'USER', clientId: 'svc-api' });
  expect(store.stats().nonces).toBe(before + 1);
});

it('a forged clientcred is refused', async () => {
  const params = sealedParams(api, { user: 'alice', password: users.alice });
  await expectInvalidClient({ ...params, clientcred: `v1.${randomBytes(80).toString('base64url')}` });
  expect(await auditCount('tag_mismatch')).toBeGreaterThan(0);
});

it('a truncated clientcred is refused', async () => {
  const params = sealedParams(api, { user: 'alice', password: users.alice });
  await expectInvalidClient({ ...params, clientcred: params.clientcred.slice(0, -6) });
});

it('a replayed login is refused', async () => {
  const params = sealedParams(api, { user: 'alice', password: users.alice });
  expect((await login(base, params)).status).toBe(200);
  await expectInvalidClient(params);
  expect(await auditCount('replayed')).toBe(1);
});

it('an expired (or far-future) clientcred is refused', async () => {
  const now = unixSeconds();
  await expectInvalidClient(sealedParams(api, { user: 'alice', password: users.alice }, now - 301));
  await expectInvalidClient(sealedParams(api, { user: 'alice', password: users.alice }, now + 400));
  expect(await auditCount('stale')).toBe(2);
});

it("another client's clientcred is refused", async () => {
  const params = sealedParams(portal, { user: 'alice' });
  await expectInvalidClient({ ...params, clientid: 'svc-api' });
  const other = sealedParams(api, { user: 'alice', password: users.alice });
  await expectInvalidClient({ ...other, clientid: 'portal-gateway' });
});

it('a sealed value moved to another parameter, or to another request, is refused', async () => {
  const params = sealedParams(api, { user: 'alice', password: users.alice });
  await expectInvalidClient({ ...params, user: params.password });
  const first = sealedParams(api, { user: 'alice', password: users.alice });
  const second = sealedParams(api, { user: 'alice', password: users.alice });
  await expectInvalidClient({ ...second, password: first.password });
  expect(await auditCount('param_invalid:user')).toBe(1);
});

it('unsealed parameters from a client with a secret are refused', async () => {
  const params = sealedParams(api, {});
  await expectInvalidClient({ ...params, user: 'alice', password: users.alice });
  await expectInvalidClient({ clientid: 'svc-api', user: 'alice', password: users.alice });
  const principal = sealedParams(portal, {});
  await expectInvalidClient({ ...principal, user: 'alice' });
});

it('the client principal is refused to a client without a secret, whatever it sends', async () => {
  const sent = await login(base, { clientid: 'svc-web', user: 'alice' });
  expect(sent.status).toBe(401);
  expect(sent.json?.code).toBe('login_failed');
});

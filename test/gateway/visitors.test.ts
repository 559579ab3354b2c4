/**
 * Visitors (SPEC section 9): the gateway logs nobody in for them. A visitor's first request goes to
 * the core without a cookie, and the stateless ANON session the core's default client issues is kept
 * for that visitor handle. So visitors spend no clientcred nonce (before, each one was a sealed
 * anonymous login whose nonce the core keeps 900 s: about 111 new visitors a second filled the store
 * and every sealed login then got 503), and each keeps its own session and its own flows.
 */
import type { RunningGateway } from '../../gateway/src/index';
import { TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { portalLogin, send, startCoreAndGateway, stopCoreAndGateway, type SeenRequest } from './gateway-helpers';

const VISITORS = 1000;
const CONCURRENCY = 16;
let core: TestServer;
let gateway: RunningGateway;
let seen: SeenRequest[];

beforeAll(async () => ({ core, gateway, seen } = await startCoreAndGateway()));
afterAll(() => stopCoreAndGateway({ core, gateway }));

interface SessionAnswer {
  session: { uniqueId: string; type: string; clientId: string; principal: unknown; level: number };
}

async function loginCount(): Promise<number> {
  const metric = await core.core.metrics.logins.get();
  return metric.values.reduce((sum, v) => sum + v.value, 0);
}

/** Runs `task` for 0..n-1, `CONCURRENCY` at a time. */
async function forEach(n: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < n) await task(next++);
  }));
}

describe(`${VISITORS} distinct visitors`, () => {
  it('spend no clientcred nonce and no login at the core, and each keeps its own ANON session', async () => {
    // A spy that calls through: the core's own nonce store, observed.
    const remember = jest.spyOn(core.core.nonces, 'rememberOnce');
    const clientcredNonces = () => remember.mock.calls.map(([key]) => key).filter((key) => key.startsWith('clientcred|'));
    const loginsBefore = await loginCount();
    const from = seen.length;
    const first: string[] = [];
    const second: string[] = [];
    try {
      await forEach(VISITORS, async (i) => {
        const answer = await send(gateway, '/gw/api/session', { user: null, visitor: `visitor-${i}`, address: `10.7.${i >> 8}.${i & 255}` });
        expect(answer.status).toBe(200);
        expect(answer.headers['set-cookie']).toBeUndefined();
        const { session } = answer.json<SessionAnswer>();
        expect(session).toMatchObject({ type: 'ANON', clientId: '', principal: null, level: 0 });
        first[i] = session.uniqueId;
      });
      await forEach(VISITORS, async (i) => {
        second[i] = (await send(gateway, '/gw/api/session', { user: null, visitor: `visitor-${i}` })).json<SessionAnswer>().session.uniqueId;
      });
      expect(clientcredNonces()).toEqual([]);
      // The spy does see them: one portal user's first request is one sealed login, one nonce.
      await send(gateway, '/gw/api/session', { user: { contextId: 'employees', uniqueId: 'bob' } });
      expect(clientcredNonces()).toHaveLength(1);
    } finally {
      remember.mockRestore();
    }
    expect(await loginCount()).toBe(loginsBefore + 1);
    expect(seen.slice(from).filter((req) => req.url.includes('/login'))).toHaveLength(1);
    expect((await gateway.metrics.coreLogins.get()).values).toEqual([expect.objectContaining({ labels: { kind: 'principal', outcome: 'success' }, value: 1 })]);
    expect(new Set(first).size).toBe(VISITORS);
    expect(second).toEqual(first);
  }, 180_000); // 2 001 requests through three real parts: more than the default 30 s on a loaded machine
});

describe("one visitor's forgotten-password flow is not another's", () => {
  const forgot = '/gw/api/contexts/employees/subjects/bob/password/forgot';
  const put = (visitor: string, body: unknown) =>
    send(gateway, forgot, { user: null, visitor, method: 'PUT', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

  it('answers given by visitor A do not let visitor B set the password; A finishes the flow', async () => {
    const questions = await send(gateway, forgot, { user: null, visitor: 'visitor-A' });
    expect(questions.status).toBe(200);
    expect(questions.json()).toEqual({ questions: ['What was the name of your first pet?', 'In which city were you born?'] });

    // B never asked: its answers are refused, and so is a new password.
    expect((await put('visitor-B', { answers: TEST_CREDENTIALS.answers.bob })).status).toBe(400);
    expect((await put('visitor-A', { answers: TEST_CREDENTIALS.answers.bob })).status).toBe(200);
    expect((await put('visitor-B', { password: 'Stolen-password-1' })).status).toBe(400);
    // B asking bob's questions itself does not inherit A's answers.
    expect((await send(gateway, forgot, { user: null, visitor: 'visitor-B' })).status).toBe(200);
    expect((await put('visitor-B', { password: 'Stolen-password-1' })).status).toBe(400);

    expect((await put('visitor-A', { password: 'Recovered-password-7' })).status).toBe(204);
    expect((await portalLogin(gateway, 'bob', 'Recovered-password-7')).status).toBe(200);
    expect((await portalLogin(gateway, 'bob', 'Stolen-password-1')).status).toBe(401);
  });
});

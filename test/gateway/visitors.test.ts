/**
 * Visitors (SPEC section 9): the gateway logs nobody in for them and keeps nothing for them. A
 * visitor's first request goes to the core without a cookie, and the stateless ANON session the
 * core's default client issues goes back sealed in `X-Svc-Visitor-State`, which the portal sends
 * back with the visitor's later requests. So visitors spend no clientcred nonce (before, each one
 * was a sealed anonymous login whose nonce the core keeps 900 s: about 111 new visitors a second
 * filled the store and every sealed login then got 503), each keeps its own session and its own
 * flows, and no flood of other visitors can push a visitor's flow out of a table (issue 24).
 */
import type { RunningGateway } from '../../gateway/src/index';
import { TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { CarriedVisitor, portalLogin, send, startCoreAndGateway, stopCoreAndGateway, type SeenRequest } from './gateway-helpers';

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
    const visitors = Array.from({ length: VISITORS }, (_v, i) => new CarriedVisitor(`visitor-${i}`, `10.7.${i >> 8}.${i & 255}`));
    try {
      await forEach(VISITORS, async (i) => {
        const answer = await visitors[i].send(gateway, '/gw/api/session');
        expect(answer.status).toBe(200);
        expect(answer.headers['set-cookie']).toBeUndefined();
        expect(answer.headers['x-svc-visitor-state']).toMatch(/^[A-Za-z0-9_-]{100,}$/);
        const { session } = answer.json<SessionAnswer>();
        expect(session).toMatchObject({ type: 'ANON', clientId: '', principal: null, level: 0 });
        first[i] = session.uniqueId;
      });
      await forEach(VISITORS, async (i) => {
        second[i] = (await visitors[i].send(gateway, '/gw/api/session')).json<SessionAnswer>().session.uniqueId;
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
  const put = (visitor: CarriedVisitor, body: unknown) => visitor.send(gateway, forgot, { method: 'PUT', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

  it('answers given by visitor A do not let visitor B set the password; A finishes the flow', async () => {
    const a = new CarriedVisitor('visitor-A');
    const b = new CarriedVisitor('visitor-B');
    const questions = await a.send(gateway, forgot);
    expect(questions.status).toBe(200);
    expect(questions.json()).toEqual({ questions: ['What was the name of your first pet?', 'In which city were you born?'] });

    // B never asked: its answers are refused, and so is a new password.
    expect((await put(b, { answers: TEST_CREDENTIALS.answers.bob })).status).toBe(400);
    expect((await put(a, { answers: TEST_CREDENTIALS.answers.bob })).status).toBe(200);
    expect((await put(b, { password: 'Stolen-password-1' })).status).toBe(400);
    // B asking bob's questions itself does not inherit A's answers.
    expect((await b.send(gateway, forgot)).status).toBe(200);
    expect((await put(b, { password: 'Stolen-password-1' })).status).toBe(400);
    // B presenting A's state under its own handle: not bound to B, ignored (B starts fresh).
    const stolen = new CarriedVisitor('visitor-B');
    stolen.state = a.state;
    expect((await put(stolen, { password: 'Stolen-password-1' })).status).toBe(400);

    expect((await put(a, { password: 'Recovered-password-7' })).status).toBe(204);
    expect((await portalLogin(gateway, 'bob', 'Recovered-password-7')).status).toBe(200);
    expect((await portalLogin(gateway, 'bob', 'Stolen-password-1')).status).toBe(401);
  });
});

describe('the visitor state (SPEC section 9)', () => {
  it('binds the visitor handle: another handle, or a tampered value starts fresh', async () => {
    const a = new CarriedVisitor('visitor-state-A');
    const first = (await a.send(gateway, '/gw/api/session')).json<SessionAnswer>().session.uniqueId;
    expect((await a.send(gateway, '/gw/api/session')).json<SessionAnswer>().session.uniqueId).toBe(first);
    const fresh = (state: string | undefined, handle = 'visitor-state-A') => send(gateway, '/gw/api/session', { user: null, visitor: handle, visitorState: state }).then((r) => r.json<SessionAnswer>().session.uniqueId);
    expect(await fresh(a.state, 'visitor-state-B')).not.toBe(first);
    const tampered = a.state!.slice(0, 40) + (a.state![40] === 'A' ? 'B' : 'A') + a.state!.slice(41);
    expect(await fresh(tampered)).not.toBe(first);
    expect(await fresh('not-a-sealing')).not.toBe(first);
    expect(await fresh('x'.repeat(10_000))).not.toBe(first);
    // A user's request carries no visitor state and gets none.
    const user = await send(gateway, '/gw/api/session', { user: { contextId: 'employees', uniqueId: 'bob' }, visitorState: a.state });
    expect(user.headers['x-svc-visitor-state']).toBeUndefined();
  });
});

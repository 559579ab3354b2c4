/**
 * A second factor through the gateway (SPEC sections 9 and 15): the allow-list passes the subject's
 * `…/otp` resource both ways (enrollment's secret and no-store come back; the confirmation and the
 * removal's body go in), `POST {gw}/api/login` answers `otp_required` with a `pending` the gateway
 * bound to the visitor handle and user, and completes with `{"pending","otp"}` at level 3 under that
 * handle only. A step-up (the assertion names the portal user) replaces that portal session's core
 * session with the level 3 one, and is refused for anyone else's credentials. Codes are Debian's
 * oathtool's; the core's clock is injected, so every step is chosen, never waited for.
 */
import type { RunningGateway } from '../../gateway/src/index';
import { TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { logLines } from '../helpers/log-lines';
import { TotpClock } from '../helpers/totp-clock';
import { employee, send, startCoreAndGateway, stopCoreAndGateway, type Answer, type SeenRequest } from './gateway-helpers';

const { users } = TEST_CREDENTIALS;
/** The core's clock, moved a TOTP step at a time (each code a step later). */
const clock = new TotpClock();

const gatewayLog = logLines();
let core: TestServer;
let gateway: RunningGateway;
let seen: SeenRequest[];

beforeAll(async () => ({ core, gateway, seen } = await startCoreAndGateway({ core: { now: clock.now }, gatewayOptions: { logger: gatewayLog.logger } })));
afterAll(() => stopCoreAndGateway({ core, gateway }));

interface LoginAnswer {
  session: { uniqueId: string; principal: { uniqueId: string; contextId: string } | null; level: number };
  roles: string[];
}

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
/** A login step at the gateway, asserted for `visitor` and `user` (null: a visitor's login; a user: a step-up). */
const loginStep = (body: Record<string, string>, visitor: string, user: 'alice' | 'bob' | null = null) =>
  send(gateway, '/gw/api/login', { method: 'POST', user: user === null ? null : employee(user), visitor, ...json(body) });
const otpPath = (subject: string) => `/gw/api/contexts/employees/subjects/${subject}/otp`;
const level = (answer: Answer) => answer.json<LoginAnswer>().session.level;

/** bob or alice enrolls through the gateway, as Self-Service does, from the portal session `visitor`. */
async function enroll(who: 'alice' | 'bob', visitor: string): Promise<string> {
  expect((await loginStep({ user: who, password: users[who] }, visitor)).status).toBe(200);
  const started = await send(gateway, otpPath(who), { method: 'POST', user: employee(who), visitor, ...json({ password: users[who] }) });
  expect(started.status).toBe(201);
  expect(started.headers['cache-control']).toBe('no-store');
  const { secret, uri } = started.json<{ secret: string; uri: string }>();
  expect(uri).toContain(`secret=${secret}`);
  clock.nextStep();
  const confirmed = await send(gateway, otpPath(who), { method: 'PUT', user: employee(who), visitor, ...json({ code: clock.code(secret) }) });
  expect(confirmed.status).toBe(200);
  expect(confirmed.json<{ recoveryCodes: string[] }>().recoveryCodes).toHaveLength(10);
  return secret;
}

describe('the …/otp resource through the gateway', () => {
  let secret: string;

  test('enrollment, confirmation and removal pass both ways; otp in the query is stripped', async () => {
    const state = async () => (await send(gateway, otpPath('bob'), { user: employee('bob'), visitor: 'bob-portal-1' })).json<{ otp: unknown }>().otp;
    expect((await loginStep({ user: 'bob', password: users.bob }, 'bob-portal-1')).status).toBe(200);
    expect(await state()).toEqual({ state: 'none', recoveryCodesLeft: 0 });
    secret = await enroll('bob', 'bob-portal-1');
    expect(core.core.secondFactors.has({ contextId: 'employees', uniqueId: 'bob' })).toBe(true);
    // GET says whether there is one, never the secret.
    expect(await state()).toEqual({ state: 'confirmed', recoveryCodesLeft: 10 });
    // The same beside the subject, in one request (Self-Service's page); an include that names no part is 400.
    const read = await send(gateway, '/gw/api/contexts/employees/subjects/bob?include=otp', { user: employee('bob'), visitor: 'bob-portal-1' });
    expect(read.json()).toMatchObject({ subject: { uniqueId: 'bob' }, otp: { state: 'confirmed', recoveryCodesLeft: 10 } });
    expect(read.text).not.toContain(secret);
    expect((await send(gateway, '/gw/api/contexts/employees/subjects/bob?include=secret', { user: employee('bob'), visitor: 'bob-portal-1' })).status).toBe(400);
    const from = seen.length;
    const stripped = await send(gateway, `${otpPath('bob')}?otp=123456&x=1`, { method: 'PUT', user: employee('bob'), visitor: 'bob-portal-1', ...json({ code: '000000' }) });
    expect(stripped.status).toBe(409);
    expect(seen.slice(from).map((r) => r.url)).toContain('/svc/resources/contexts/employees/subjects/bob/otp?x=1');
    // The other way: nothing beside the allow-list reaches the core, and no core cookie comes back.
    const before = seen.length;
    for (const path of ['/gw/api/otp', '/gw/api/contexts/employees/subjects/bob/otp/../password', '/gw/api/contexts/employees/subjects/bob/%2e%2e/otp', '/gw/otp']) {
      expect((await send(gateway, path, { method: 'POST', user: employee('bob'), visitor: 'bob-portal-1', ...json({ password: users.bob }) })).status).toBe(404);
    }
    expect(seen.length).toBe(before);
    const again = await send(gateway, otpPath('bob'), { method: 'POST', user: employee('bob'), visitor: 'bob-portal-1', ...json({ password: users.bob }) });
    expect(again.status).toBe(409);
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  test('the password step answers otp_required with a pending sealed by the gateway, not the core\'s token', async () => {
    const wrong = await loginStep({ user: 'bob', password: 'not-his-password' }, 'bob-portal-2');
    expect(wrong.json()).toMatchObject({ status: 401, code: 'login_failed' });
    const right = await loginStep({ user: 'bob', password: users.bob }, 'bob-portal-2');
    expect(right.status).toBe(401);
    expect(right.headers['www-authenticate']).toBe('SvcSession realm="svc", error="otp_required"');
    const { code, pending } = right.json<{ code: string; pending: string }>();
    expect(code).toBe('otp_required');
    expect(pending).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(pending.startsWith('p1.')).toBe(false);
  });

  test('the second step completes at level 3 under the same handle only; the session is held for that portal session', async () => {
    const pending = (await loginStep({ user: 'bob', password: users.bob }, 'bob-portal-3')).json<{ pending: string }>().pending;
    clock.nextStep();
    const from = seen.length;
    // Another portal session's, a step-up's (the assertion names bob), or an altered one: refused before any core.
    for (const [visitor, user] of [['someone-else', null], ['bob-portal-3', 'bob']] as const) {
      const refused = await loginStep({ pending, otp: clock.code(secret) }, visitor, user);
      expect(refused.status).toBe(401);
      expect(refused.json()).toMatchObject({ code: 'login_failed' });
    }
    expect((await loginStep({ pending: `${pending.slice(0, -2)}AA`, otp: clock.code(secret) }, 'bob-portal-3')).json()).toMatchObject({ code: 'login_failed' });
    expect(seen.length).toBe(from);
    const done = await loginStep({ pending, otp: clock.code(secret) }, 'bob-portal-3');
    expect(done.status).toBe(200);
    expect(done.json<LoginAnswer>()).toMatchObject({ session: { principal: { uniqueId: 'bob', contextId: 'employees' }, level: 3 }, roles: ['user'] });
    const session = await send(gateway, '/gw/api/session', { user: employee('bob'), visitor: 'bob-portal-3' });
    expect(session.json<LoginAnswer>().session).toMatchObject({ uniqueId: done.json<LoginAnswer>().session.uniqueId, level: 3 });
    // Spent: the same pending again is the core's login_failed.
    clock.nextStep();
    expect((await loginStep({ pending, otp: clock.code(secret) }, 'bob-portal-3')).json()).toMatchObject({ code: 'login_failed' });
  });

  test('{"pending","otp"} is two non-empty strings; mixing the steps is refused', async () => {
    for (const body of [{ pending: 'x' }, { pending: 'x', otp: '' }, { pending: 'x', otp: '123456', user: 'bob' }, { user: 'bob', password: 'x', otp: '123456' }]) {
      const refused = await loginStep(body as unknown as Record<string, string>, 'bob-portal-4');
      expect(refused.status).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'invalid_request' });
    }
  });

  test('removal of one\'s own factor with the password and a code passes the DELETE body', async () => {
    clock.nextStep();
    const removed = await send(gateway, otpPath('bob'), { method: 'DELETE', user: employee('bob'), visitor: 'bob-portal-1', ...json({ password: users.bob, code: clock.code(secret) }) });
    expect(removed.status).toBe(204);
    expect(core.core.secondFactors.has({ contextId: 'employees', uniqueId: 'bob' })).toBe(false);
  });
});

describe('a step-up through the gateway', () => {
  let aliceSecret: string;
  const bobsRecord = '/gw/api/contexts/employees/subjects/bob';

  test("an admin with a factor meets step_up_required at level 1 and 2; the step-up replaces that portal session's core session with level 3", async () => {
    aliceSecret = await enroll('alice', 'alice-portal-0');
    // A portal session of alice's whose core session is the client principal's (level 1).
    const before = await send(gateway, bobsRecord, { user: employee('alice'), visitor: 'alice-portal-1' });
    expect(before.status).toBe(401);
    expect(before.json()).toMatchObject({ code: 'step_up_required' });
    expect(before.headers['www-authenticate']).toBe('SvcSession realm="svc", error="insufficient_user_authentication"');
    const check = await send(gateway, `${bobsRecord}?isAllowed=READ`, { user: employee('alice'), visitor: 'alice-portal-1' });
    expect(check.json()).toMatchObject({ decision: 'DENY', reason: 'step_up_required' });
    const held = (await send(gateway, '/gw/api/session', { user: employee('alice'), visitor: 'alice-portal-1' })).json<LoginAnswer>().session;
    expect(held.level).toBe(1);

    const first = await loginStep({ user: 'alice', password: users.alice }, 'alice-portal-1', 'alice');
    expect(first.json()).toMatchObject({ code: 'otp_required' });
    clock.nextStep();
    const done = await loginStep({ pending: first.json<{ pending: string }>().pending, otp: clock.code(aliceSecret) }, 'alice-portal-1', 'alice');
    expect(level(done)).toBe(3);
    expect((await send(gateway, bobsRecord, { user: employee('alice'), visitor: 'alice-portal-1' })).status).toBe(200);
    // The session it replaced is ended at the core; another portal session of alice's is untouched (level 1).
    expect((await core.core.sessions.list(10_000)).map((s) => s.handle)).not.toContain(held.uniqueId);
    expect((await send(gateway, bobsRecord, { user: employee('alice'), visitor: 'alice-portal-0' })).json()).toMatchObject({ code: 'step_up_required' });
  });

  test("a step-up with someone else's credentials is refused, and the session held stays", async () => {
    const held = (await send(gateway, '/gw/api/session', { user: employee('alice'), visitor: 'alice-portal-1' })).json<LoginAnswer>().session;
    const other = await loginStep({ user: 'bob', password: users.bob }, 'alice-portal-1', 'alice');
    expect(other.status).toBe(401);
    expect(other.json()).toMatchObject({ code: 'login_failed' });
    expect((await send(gateway, '/gw/api/session', { user: employee('alice'), visitor: 'alice-portal-1' })).json<LoginAnswer>().session.uniqueId).toBe(held.uniqueId);
    const audits = gatewayLog.audits().filter((a) => a.event === 'portal_login' && a.reason === 'another_user');
    expect(audits).toHaveLength(1);
  });

  test("at level 3 the admin removes another's factor (DELETE without a body); a renewed session is level 1 again", async () => {
    await enroll('bob', 'bob-portal-5');
    expect((await send(gateway, otpPath('bob'), { method: 'DELETE', user: employee('alice'), visitor: 'alice-portal-1' })).status).toBe(204);
    expect(core.core.secondFactors.has({ contextId: 'employees', uniqueId: 'bob' })).toBe(false);
    const held = (await send(gateway, '/gw/api/session', { user: employee('alice'), visitor: 'alice-portal-1' })).json<LoginAnswer>().session;
    await core.core.sessions.endByHandle(held.uniqueId);
    const renewed = (await send(gateway, '/gw/api/session', { user: employee('alice'), visitor: 'alice-portal-1' })).json<LoginAnswer>().session;
    expect(renewed.uniqueId).not.toBe(held.uniqueId);
    expect(renewed.level).toBe(1);
  });

  test('audit lines never carry a password, a code or a pending token', () => {
    for (const line of gatewayLog.audits()) {
      const text = JSON.stringify(line);
      expect(text).not.toContain(users.bob);
      expect(text).not.toContain(users.alice);
      expect(text).not.toContain('pending');
    }
  });
});

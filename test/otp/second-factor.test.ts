/**
 * A second factor over a real core (SPEC 15): bob enrolls with his password and confirms with a
 * code Debian's oathtool makes; a login then answers 401 otp_required with `pending` after the right
 * password only (a wrong one gets the same login_failed as before), and completes at level 3 with a
 * code of a later step, sealed like a password for a client with a secret; a replayed code, a wrong
 * one and a spent pending token are refused, a wrong code counts as a failed login and ten wrong
 * ones a day stop every code. An admin with a factor administers only at level 3 (step_up_required
 * on the real request, the check and AuthZEN); removing another's factor takes level 3 or SYSTEM.
 * The server's clock is injected, so every code's step is chosen, never waited for.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ClientSealer } from '../../client/src/clientcred/sealer';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send, type Sent } from '../helpers/http';
import { login, sealedParams } from '../helpers/login';

const { users } = TEST_CREDENTIALS;
/** A step boundary (1795000020 = 30 × 59833334), so `clock + 30 s × n` is step n after it. */
const T0 = 1_795_000_020_000;
let clock = T0;
let server: TestServer;
let base: string;

const oathtool = (secret: string, ms = clock) => execFileSync('oathtool', ['--totp', '-b', secret, '--now', `@${Math.floor(ms / 1000)}`], { encoding: 'utf8' }).trim();
const nextStep = () => (clock += 30_000);
const otpPath = (subject: string) => `${base}/resources/contexts/employees/subjects/${subject}/otp`;
const web = (user: string, password: string, extra: Record<string, string> = {}) => login(base, { clientid: 'svc-web', user, password, ...extra });
const level = (sent: Sent) => (sent.json?.session as { level: number } | undefined)?.level;

async function enroll(user: 'bob' | 'alice'): Promise<{ secret: string; recoveryCodes: string[] }> {
  const session = await web(user, users[user]);
  expect(level(session)).toBe(2);
  const started = await send(otpPath(user), { cookie: session.cookie, json: { password: users[user] } });
  expect(started.status).toBe(201);
  expect(started.headers.get('cache-control')).toBe('no-store');
  const secret = started.json!.secret as string;
  expect(started.json!.uri).toBe(`otpauth://totp/svc%3A${user}?secret=${secret}&issuer=svc&algorithm=SHA1&digits=6&period=30`);
  nextStep(); // a step no code of this subject was accepted for yet
  const confirmed = await send(otpPath(user), { method: 'PUT', cookie: session.cookie, json: { code: oathtool(secret) } });
  expect(confirmed.status).toBe(200);
  return { secret, recoveryCodes: confirmed.json!.recoveryCodes as string[] };
}

/** The password step, then the code step: the level 3 session's cookie. */
async function loginWithCode(user: 'bob' | 'alice', secret: string): Promise<string> {
  const first = await web(user, users[user]);
  expect(first.status).toBe(401);
  nextStep();
  const second = await login(base, { clientid: 'svc-web', pending: first.json!.pending as string, otp: oathtool(secret) });
  expect(second.status).toBe(200);
  expect(level(second)).toBe(3);
  return second.cookie!;
}

beforeAll(async () => {
  server = await startTestServer({ now: () => clock });
  base = server.baseUrl;
});
afterAll(() => server.stop());

describe('bob enrolls, logs in with a code', () => {
  let secret: string;
  let recoveryCodes: string[];

  test('enrollment with the password, confirmation with a code: ten recovery codes, once; the secret is sealed at rest', async () => {
    const wrong = await send(otpPath('bob'), { cookie: (await web('bob', users.bob)).cookie, json: { password: 'not-his' } });
    expect(wrong.status).toBe(400);
    ({ secret, recoveryCodes } = await enroll('bob'));
    expect(recoveryCodes).toHaveLength(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[A-Z2-7]{16}$/);
    const again = await send(otpPath('bob'), { cookie: (await loginWithCode('bob', secret)), json: { password: users.bob } });
    expect(again.status).toBe(409);
    const stored = readFileSync(join(server.dataDir, 'otp.sqlite'));
    expect(stored.includes(Buffer.from(secret))).toBe(false);
    expect(readdirSync(server.dataDir)).toContain('otp.key');
    const view = await send(`${base}/resources/contexts/employees/subjects/bob`, { cookie: (await web('alice', users.alice)).cookie });
    expect(view.text).not.toContain(secret);
    // The subject's own view of its events says a factor was added (never the secret).
    const events = await send(`${base}/resources/contexts/employees/subjects/bob/events`, { cookie: await loginWithCode('bob', secret) });
    expect(events.json!.events).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'second_factor', detail: 'success added' })]));
    expect(events.text).not.toContain(secret);
  });

  test('a wrong password is login_failed as for anyone; the right one is otp_required with pending', async () => {
    const wrongBob = await web('bob', 'wrong-password');
    const wrongAlice = await web('alice', 'wrong-password');
    expect(wrongBob.status).toBe(401);
    expect(wrongBob.json!.code).toBe('login_failed');
    expect({ ...wrongBob.json, instance: undefined }).toEqual({ ...wrongAlice.json, instance: undefined });
    const right = await web('bob', users.bob);
    expect(right.status).toBe(401);
    expect(right.json!.code).toBe('otp_required');
    expect(typeof right.json!.pending).toBe('string');
    // No session yet: at most the request's own anonymous, stateless one, as after a wrong password.
    expect(right.cookie === undefined || right.cookie.startsWith('s1.')).toBe(true);
  });

  test("oathtool's code completes the login at level 3; replayed, it is refused; a pending token is spent once", async () => {
    const first = await web('bob', users.bob);
    nextStep();
    const code = oathtool(secret);
    const second = await login(base, { clientid: 'svc-web', pending: first.json!.pending as string, otp: code });
    expect(second.status).toBe(200);
    expect(level(second)).toBe(3);
    const session = await send(`${base}/resources/session`, { cookie: second.cookie });
    expect(level(session)).toBe(3);
    // The same code again, with a new pending: its step is not later than the last accepted.
    const replay = await login(base, { clientid: 'svc-web', pending: (await web('bob', users.bob)).json!.pending as string, otp: code });
    expect(replay.status).toBe(401);
    expect(replay.json!.code).toBe('login_failed');
    // The spent token again, with a fresh code.
    nextStep();
    const spent = await login(base, { clientid: 'svc-web', pending: first.json!.pending as string, otp: oathtool(secret) });
    expect(spent.json!.code).toBe('login_failed');
  });

  test('otp in one request with the password; never in the URL', async () => {
    nextStep();
    const once = await web('bob', users.bob, { otp: oathtool(secret) });
    expect(level(once)).toBe(3);
    const inUrl = await send(`${base}/login?otp=123456`, { form: { clientid: 'svc-web', user: 'bob', password: users.bob } });
    expect(inUrl.status).toBe(400);
  });

  test('sealed like a password for a client with a secret', async () => {
    const sealer = new ClientSealer('svc-api', TEST_CREDENTIALS.clients['svc-api']);
    const first = await login(base, sealedParams(sealer, { user: 'bob', password: users.bob }, clock / 1000));
    expect(first.json!.code).toBe('otp_required');
    nextStep();
    const plain = await login(base, { ...sealedParams(sealer, {}, clock / 1000), pending: first.json!.pending as string, otp: oathtool(secret) });
    expect(plain.json!.code).toBe('invalid_client');
    nextStep();
    const pending = (await login(base, sealedParams(sealer, { user: 'bob', password: users.bob }, clock / 1000))).json!.pending as string;
    const sealed = await login(base, { ...sealedParams(sealer, { otp: oathtool(secret) }, clock / 1000), pending });
    expect(sealed.status).toBe(200);
    expect(level(sealed)).toBe(3);
  });

  test('a recovery code logs in once', async () => {
    const [code] = recoveryCodes;
    const first = await web('bob', users.bob, { otp: code });
    expect(level(first)).toBe(3);
    const again = await web('bob', users.bob, { otp: code });
    expect(again.json!.code).toBe('login_failed');
    await server.core.lockout.lift('employees/bob');
  });

  test('a wrong code counts as a failed login; after ten a day no code is tried, until the lock is lifted', async () => {
    const before = await server.core.lockout.counts('employees/bob', '127.0.0.1');
    const wrong = await web('bob', users.bob, { otp: '000000' === oathtool(secret) ? '111111' : '000000' });
    expect(wrong.json!.code).toBe('login_failed');
    const after = await server.core.lockout.counts('employees/bob', '127.0.0.1');
    expect(after.subject).toBe(before.subject + 1);
    await server.core.lockout.lift('employees/bob');
    const bob = { contextId: 'employees', uniqueId: 'bob' };
    // One wrong code above; nine more spend the day's ten.
    for (let i = 0; i < 9; i++) expect(await server.core.secondFactors.verify(bob, 'ABCDEFGHIJKLMNOP')).toBe(false);
    nextStep();
    expect(await server.core.secondFactors.verify(bob, oathtool(secret))).toBe(false);
    clock += 24 * 60 * 60 * 1000;
    expect(await server.core.secondFactors.verify(bob, oathtool(secret))).toBe(true);
    // Spent again, then an admin lifts the lock: the codes count from zero.
    for (let i = 0; i < 10; i++) expect(await server.core.secondFactors.verify(bob, 'ABCDEFGHIJKLMNOP')).toBe(false);
    nextStep();
    expect(await server.core.secondFactors.verify(bob, oathtool(secret))).toBe(false);
    const system = (await web('svcadmin', users.svcadmin)).cookie;
    expect((await send(`${base}/resources/contexts/employees/subjects/bob/lockout`, { method: 'DELETE', cookie: system })).status).toBe(204);
    nextStep();
    expect(await server.core.secondFactors.verify(bob, oathtool(secret))).toBe(true);
  });
});

describe('an admin with a second factor administers at level 3 only', () => {
  let aliceSecret: string | undefined;
  const bobsRecord = () => `${base}/resources/contexts/employees/subjects/bob`;

  test('alice without a factor is unaffected; with one, level 2 meets step_up_required everywhere; level 3 passes', async () => {
    const before = await web('alice', users.alice);
    expect((await send(bobsRecord(), { cookie: before.cookie })).status).toBe(200);
    aliceSecret = (await enroll('alice')).secret;
    const level3 = await loginWithCode('alice', aliceSecret);
    // A level 2 session of alice's (as her password alone made before she enrolled).
    const issued = await server.core.sessions.create({ type: 'USER', clientId: 'svc-web', principal: { contextId: 'employees', uniqueId: 'alice' }, level: 2, authenticator: 'employees-password' });
    const real = await send(bobsRecord(), { cookie: issued.cookieValue });
    expect(real.status).toBe(401);
    expect(real.json!.code).toBe('step_up_required');
    expect(real.headers.get('www-authenticate')).toBe('SvcSession realm="svc", error="insufficient_user_authentication"');
    const check = await send(`${bobsRecord()}?isAllowed=READ`, { cookie: issued.cookieValue });
    expect(check.json).toMatchObject({ decision: 'DENY', reason: 'step_up_required' });
    expect(check.headers.get('www-authenticate')).toBe('SvcSession realm="svc", error="insufficient_user_authentication"');
    const authzen = await send(`${base}/access/v1/evaluation`, { cookie: issued.cookieValue, headers: { origin: server.url }, json: { action: { name: 'READ' }, resource: { type: 'subject', id: 'employees/bob' } } });
    expect(authzen.json).toEqual({ decision: false, context: { reason: 'step_up_required' } });
    // Her own record needs no step-up: the user's own policy has no minLevel.
    expect((await send(`${base}/resources/contexts/employees/subjects/alice`, { cookie: issued.cookieValue })).status).toBe(200);
    expect((await send(bobsRecord(), { cookie: level3 })).status).toBe(200);
  });

  test("removing another's factor takes level 3 (or SYSTEM); one's own takes the password and a code", async () => {
    const alice3 = await loginWithCode('alice', aliceSecret!);
    const bobs = await send(otpPath('bob'), { method: 'DELETE', cookie: alice3 });
    expect(bobs.status).toBe(204);
    expect(server.core.secondFactors.has({ contextId: 'employees', uniqueId: 'bob' })).toBe(false);
    const own = await send(otpPath('alice'), { method: 'DELETE', cookie: alice3, json: { password: users.alice, code: (nextStep(), oathtool(aliceSecret!)) } });
    expect(own.status).toBe(204);
    // Now an admin without a factor: bob's (new) factor is not hers to strip below level 3.
    const { secret } = await enroll('bob');
    expect(secret).toBeDefined();
    const alice2 = (await web('alice', users.alice)).cookie;
    const refused = await send(otpPath('bob'), { method: 'DELETE', cookie: alice2 });
    expect(refused.json!.code).toBe('step_up_required');
    const system = (await web('svcadmin', users.svcadmin)).cookie;
    expect((await send(otpPath('bob'), { method: 'DELETE', cookie: system })).status).toBe(204);
  });

  test('the password of a subject with a factor is set from level 3 or by SYSTEM only', async () => {
    await enroll('bob');
    const body = { subject: { attributes: { password: 'New-bob-pass-42' } } };
    const alice2 = (await web('alice', users.alice)).cookie;
    const refused = await send(bobsRecord(), { method: 'PUT', cookie: alice2, json: body });
    expect(refused.json!.code).toBe('step_up_required');
    expect(refused.headers.get('www-authenticate')).toBe('SvcSession realm="svc", error="insufficient_user_authentication"');
    const system = (await web('svcadmin', users.svcadmin)).cookie;
    const bySystem = await send(bobsRecord(), { method: 'PUT', cookie: system, json: body });
    expect(bySystem.json?.code).not.toBe('step_up_required');
  });
});

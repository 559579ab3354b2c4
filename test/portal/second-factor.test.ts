/**
 * A second factor in the portal (SPEC 15), with the real core, gateway and portal (the demo's pages
 * and portlets) in this process: bob turns two-step sign-in on in Self-Service (his password, the
 * QR code drawn as inline SVG and the secret as text, a first code from Debian's oathtool, the ten
 * recovery codes shown once) and off again (his password and a code); the portal login asks for the
 * code as a second step, holding the gateway's pending in the visitor's sealed cookie and making no
 * session until the code is right; a step-up asks the password and code again, gives that portal
 * session a level 3 core session and a new cookie value, and goes back only to a page of the portal.
 * The core's clock is injected, so every code's step is chosen, never waited for.
 */
import { PORTAL_SESSION_COOKIE } from '../../portlet-adapter/src/portal/session-store';
import { TotpClock } from '../helpers/totp-clock';
import { TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { act, actionOf, Browser, hrefOf, startDemoStack, tokenOf, unescapeHtml, type Answer, type DemoStack, type TestPortal } from './portal-helpers';

const { users } = TEST_CREDENTIALS;
/** The core's clock, moved a TOTP step at a time. */
const clock = new TotpClock();

let core: TestServer;
let portal: TestPortal;
let stack: DemoStack | undefined;

beforeAll(async () => {
  ({ core, portal } = stack = await startDemoStack({ now: clock.now }, 'svc-portal-otp-'));
}, 60_000);
afterAll(async () => {
  await stack?.stop();
});




/** The password step of the portal login. */
async function passwordStep(browser: Browser, user: 'alice' | 'bob', password = users[user]): Promise<Answer> {
  const form = await browser.get('/portal/login');
  return browser.post('/portal/login', { _csrf: tokenOf(form.text), user, password, goto: '/portal/page/home' });
}

/** bob turns two-step sign-in on in Self-Service; resolves the secret and the recovery codes. */
async function turnOn(browser: Browser): Promise<{ secret: string; codes: string[] }> {
  const home = await browser.get('/portal/page/home');
  expect(home.text).toContain('Two-step sign-in is <strong>off</strong>');
  const start = await browser.get(hrefOf(home, 'Turn on two-step sign-in'));
  const confirm = await act(browser, actionOf(start, 'otpEnroll'), { op: 'otpEnroll', password: users.bob });
  expect(confirm.headers.get('content-security-policy')).toContain("script-src 'self'");
  // The QR code is inline SVG drawn by the portal (no image service), with an accessible name.
  expect(confirm.text).toMatch(/<svg class="svc-qr" role="img" aria-label="QR code[^"]*" focusable="false" xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 \d+ \d+"/);
  const content = confirm.text.slice(confirm.text.indexOf('<main'));
  expect(content).not.toMatch(/<img|<script|style=/);
  const secret = /<code class="svc-secret" id="svc_me_secret">([A-Z2-7 ]+)<\/code>/.exec(confirm.text)![1].replace(/ /g, '');
  expect(secret).toHaveLength(32);
  clock.nextStep();
  const confirmed = await browser.post(actionOf(confirm, 'otpConfirm'), { op: 'otpConfirm', code: clock.code(secret) });
  expect(confirmed.status).toBe(303);
  const codesPage = await browser.get(confirmed.location!);
  expect(codesPage.text).toContain('Two-step sign-in is on.');
  const codes = [...codesPage.text.matchAll(/<li><code>([A-Z2-7-]{19})<\/code><\/li>/g)].map((m) => m[1].replace(/-/g, ''));
  expect(codes).toHaveLength(10);
  // Shown once: a reload of the same URL shows the profile, not the codes.
  const again = await browser.get(confirmed.location!);
  expect(again.text).not.toContain(codes[0].slice(0, 4) + '-' + codes[0].slice(4, 8));
  expect(again.text).toContain('Two-step sign-in is <strong>on</strong>');
  return { secret, codes };
}

describe('two-step sign-in in Self-Service and the portal login', () => {
  let secret: string;
  let codes: string[];

  test('bob turns it on: password, QR code and secret, a first code, the recovery codes once', async () => {
    const bob = new Browser(portal);
    expect((await passwordStep(bob, 'bob')).status).toBe(303);
    ({ secret, codes } = await turnOn(bob));
    const home = await bob.get('/portal/page/home?me.p.view=otp-codes');
    expect(home.text).not.toContain(codes[0].slice(0, 4) + '-');
    expect(home.text).toContain('Two-step sign-in is <strong>on</strong>');
    expect(home.text).toContain('10 of 10 recovery codes are left');
    expect(home.text).not.toContain(secret);
    expect(core.core.secondFactors.has({ contextId: 'employees', uniqueId: 'bob' })).toBe(true);
  });

  test('the login asks for the code after the password; no portal session until the code is right', async () => {
    const bob = new Browser(portal);
    const wrongPassword = await passwordStep(bob, 'bob', 'not-his-password');
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.text).toContain('The user name or password is not correct.');
    const codePage = await passwordStep(bob, 'bob');
    expect(codePage.status).toBe(200);
    expect(codePage.text).toMatch(/<label class="portlet-form-label" for="portal-otp">Code<\/label>/);
    expect(codePage.text).toContain('autocomplete="one-time-code"');
    expect(codePage.headers.get('cache-control')).toBe('no-store');
    expect(bob.cookies.has(PORTAL_SESSION_COOKIE)).toBe(false);
    // The pending travels sealed in the visitor cookie: the page holds none of it.
    expect(codePage.text).not.toMatch(/pending/i);
    clock.nextStep();
    const done = await bob.post('/portal/login', { _csrf: tokenOf(codePage.text), otp: clock.code(secret) });
    expect(done).toMatchObject({ status: 303, location: '/portal/page/home' });
    expect(bob.cookies.has(PORTAL_SESSION_COOKIE)).toBe(true);
    expect((await bob.get('/portal/page/home')).text).toContain('Signed in as <strong>employees/bob</strong>');
    // The core session the gateway holds for it is level 3.
    const handle = portal.deps.sessions.resolve(bob.cookies.get(PORTAL_SESSION_COOKIE))!.handle;
    const session = await portal.deps.gateway.request<{ session: { level: number } }>({ user: { contextId: 'employees', uniqueId: 'bob' }, visitor: handle, address: null }, { method: 'GET', path: '/session' });
    expect(session.body!.session.level).toBe(3);
  });

  test('a wrong code spends the held login: the password comes first again; a recovery code serves once', async () => {
    const bob = new Browser(portal);
    const codePage = await passwordStep(bob, 'bob');
    const wrong = await bob.post('/portal/login', { _csrf: tokenOf(codePage.text), otp: '000000' === clock.code(secret) ? '111111' : '000000' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('The code is not correct');
    expect(wrong.text).toContain('for="portal-password"');
    clock.nextStep();
    const replay = await bob.post('/portal/login', { _csrf: tokenOf(wrong.text), otp: clock.code(secret) });
    expect(replay.status).toBe(401);
    expect(replay.text).toContain('took too long or was already used');
    expect(bob.cookies.has(PORTAL_SESSION_COOKIE)).toBe(false);
    await core.core.lockout.lift('employees/bob');
    const again = await passwordStep(bob, 'bob');
    const recovered = await bob.post('/portal/login', { _csrf: tokenOf(again.text), otp: codes[0] });
    expect(recovered.status).toBe(303);
    expect((await bob.get('/portal/page/home')).text).toContain('9 of 10 recovery codes are left');
  });

  test('bob turns it off with his password and a code', async () => {
    const bob = new Browser(portal);
    const codePage = await passwordStep(bob, 'bob');
    clock.nextStep();
    expect((await bob.post('/portal/login', { _csrf: tokenOf(codePage.text), otp: clock.code(secret) })).status).toBe(303);
    const home = await bob.get('/portal/page/home');
    const form = await bob.get(hrefOf(home, 'Turn off two-step sign-in'));
    const wrong = await act(bob, actionOf(form, 'otpRemove'), { op: 'otpRemove', password: 'not-his-password', code: '123456' });
    expect(wrong.text).toMatch(/portlet-msg-error/);
    expect(core.core.secondFactors.has({ contextId: 'employees', uniqueId: 'bob' })).toBe(true);
    clock.nextStep();
    const off = await act(bob, actionOf(form, 'otpRemove'), { op: 'otpRemove', password: users.bob, code: clock.code(secret) });
    expect(off.text).toContain('Two-step sign-in is off: your password alone signs you in.');
    expect(core.core.secondFactors.has({ contextId: 'employees', uniqueId: 'bob' })).toBe(false);
    // Its events say so, never the secret.
    const events = JSON.stringify(await core.core.subjects.events('employees', 'bob', 0, 50));
    expect(events).toContain('removed');
    expect(events).not.toContain(secret);
  });
});

describe('a step-up', () => {
  let aliceSecret: string;
  let alice: Browser;
  let handle: string;
  const level = async () =>
    (await portal.deps.gateway.request<{ session: { level: number } }>({ user: { contextId: 'employees', uniqueId: 'alice' }, visitor: handle, address: null }, { method: 'GET', path: '/session' })).body!.session.level;

  beforeAll(async () => {
    const { login } = await import('../helpers/login');
    const { send } = await import('../helpers/http');
    const session = await login(core.baseUrl, { clientid: 'svc-web', user: 'alice', password: users.alice });
    const path = `${core.baseUrl}/resources/contexts/employees/subjects/alice/otp`;
    aliceSecret = (await send(path, { cookie: session.cookie, json: { password: users.alice } })).json!.secret as string;
    clock.nextStep();
    expect((await send(path, { method: 'PUT', cookie: session.cookie, json: { code: clock.code(aliceSecret) } })).status).toBe(200);
    // A portal session of alice's whose core session the gateway makes with the client principal (level 1).
    alice = Browser.loggedIn(portal, 'employees/alice', ['admin']);
    handle = portal.deps.sessions.resolve(alice.cookies.get(PORTAL_SESSION_COOKIE))!.handle;
  });

  test('a visitor is sent to the login first', async () => {
    const visitor = new Browser(portal);
    expect(await visitor.get('/portal/step-up?goto=%2Fportal%2Fpage%2Fadmin')).toMatchObject({ status: 302, location: '/portal/login?goto=%2Fportal%2Fpage%2Fadmin' });
  });

  test('password and code again: level 3 for this portal session, a new cookie value, back to the page it came from', async () => {
    expect(await level()).toBe(1);
    const form = await alice.get('/portal/step-up?goto=%2Fportal%2Fpage%2Fadmin%3Fusers.p.x%3D1');
    expect(form.status).toBe(200);
    expect(form.text).toContain('value="alice"');
    const wrong = await alice.post('/portal/step-up', { _csrf: tokenOf(form.text), goto: '/portal/page/admin?users.p.x=1', password: 'not-her-password' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('The password is not correct.');
    const codePage = await alice.post('/portal/step-up', { _csrf: tokenOf(form.text), goto: '/portal/page/admin?users.p.x=1', password: users.alice });
    expect(codePage.status).toBe(200);
    expect(codePage.text).toContain('action="/portal/step-up"');
    const before = alice.cookies.get(PORTAL_SESSION_COOKIE);
    clock.nextStep();
    const done = await alice.post('/portal/step-up', { _csrf: tokenOf(codePage.text), otp: clock.code(aliceSecret) });
    expect(done).toMatchObject({ status: 303, location: '/portal/page/admin?users.p.x=1' });
    expect(alice.cookies.get(PORTAL_SESSION_COOKIE)).not.toBe(before);
    expect(portal.deps.sessions.resolve(before)).toBeUndefined();
    expect(portal.deps.sessions.resolve(alice.cookies.get(PORTAL_SESSION_COOKIE))!.handle).toBe(handle);
    expect(await level()).toBe(3);
  });

  test('User Admin below level 3: the window offers the step-up, not an error', async () => {
    const other = Browser.loggedIn(portal, 'employees/alice', ['admin']);
    const page = await other.get('/portal/page/admin');
    expect(page.text).toContain('first confirm it is you with your password and the code of your authenticator app');
    expect(unescapeHtml(hrefOf(page, 'Confirm it is you'))).toMatch(/^\/portal\/step-up\?goto=%2Fportal%2Fpage%2Fadmin/);
    expect(page.text).not.toContain('portlet-msg-error');
  });

  test("at level 3 alice sees bob's second factor in User Admin and removes it, after a confirmation", async () => {
    const { login } = await import('../helpers/login');
    const { send } = await import('../helpers/http');
    const session = await login(core.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob });
    const path = `${core.baseUrl}/resources/contexts/employees/subjects/bob/otp`;
    const bobSecret = (await send(path, { cookie: session.cookie, json: { password: users.bob } })).json!.secret as string;
    clock.nextStep();
    expect((await send(path, { method: 'PUT', cookie: session.cookie, json: { code: clock.code(bobSecret) } })).status).toBe(200);
    expect(await level()).toBe(3);
    const view = await alice.get('/portal/page/admin?users.p.view=show&users.p.subject=bob');
    expect(view.text).toContain('<dt class="portlet-form-label">Two-step sign-in</dt><dd>On (10 of 10 recovery codes left)</dd>');
    const confirm = await alice.get(hrefOf(view, 'Remove second factor'));
    expect(confirm.text).toContain('Remove the second factor of bob?');
    const done = await act(alice, actionOf(confirm, 'removeOtp'), { op: 'removeOtp', target: 'bob', view: 'otp', subject: 'bob' });
    expect(done.text).toContain('The second factor of bob was removed');
    expect(done.text).toContain('<dd>Off</dd>');
    expect(core.core.secondFactors.has({ contextId: 'employees', uniqueId: 'bob' })).toBe(false);
  });

  test('no open redirect: a return target off the portal goes to the portal\'s root', async () => {
    for (const goto of ['https://evil.example/x', '//evil.example/x', '/elsewhere', '/\\evil.example']) {
      const form = await alice.get(`/portal/step-up?goto=${encodeURIComponent(goto)}`);
      expect(form.text).not.toContain('evil.example');
      const codePage = await alice.post('/portal/step-up', { _csrf: tokenOf(form.text), goto, password: users.alice });
      clock.nextStep();
      const done = await alice.post('/portal/step-up', { _csrf: tokenOf(codePage.text), goto, otp: clock.code(aliceSecret) });
      expect(done).toMatchObject({ status: 303, location: '/portal/' });
    }
  });
});

/**
 * Removing another subject's second factor needs the administrator's own session at level 3 (SPEC
 * 15), a step-up with their own code. An administrator with no second factor of their own could
 * never complete that step-up: User Admin shows why, and where to turn one on (the page with
 * Self-Service, which the portal names), instead of a "Remove second factor" that leads there, and
 * the step-up page itself says the same instead of a form that could never succeed. The core still
 * refuses the removal (step_up_required) when asked anyway. Real core, gateway and portal (the
 * demo's pages and portlets) in this process; codes from Debian's oathtool on the core's injected clock.
 */
import { PORTAL_SESSION_COOKIE } from '../../portlet-adapter/src/portal/session-store';
import { TotpClock } from '../helpers/totp-clock';
import { TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send } from '../helpers/http';
import { login } from '../helpers/login';
import { Browser, linkTo, startDemoStack, tokenOf, unescapeHtml, type Answer, type DemoStack, type TestPortal } from './portal-helpers';

const { users } = TEST_CREDENTIALS;
/** The core's clock, moved a TOTP step at a time. */
const clock = new TotpClock();

const BOB = '/portal/page/admin?users.p.view=show&users.p.subject=bob';
const EXPLANATION = 'To remove a second factor you must confirm it is you with your own second factor, and you have none. Turn on two-step sign-in in Self-Service first.';

let core: TestServer;
let portal: TestPortal;
let stack: DemoStack | undefined;

beforeAll(async () => {
  ({ core, portal } = stack = await startDemoStack({ now: clock.now }, 'svc-portal-own-factor-'));
  await enroll('bob');
}, 60_000);
afterAll(async () => {
  await stack?.stop();
});

/** `user` turns two-step sign-in on over the core's REST API; the secret. */
async function enroll(user: 'alice' | 'bob'): Promise<string> {
  const session = await login(core.baseUrl, { clientid: 'svc-web', user, password: users[user] });
  const path = `${core.baseUrl}/resources/contexts/employees/subjects/${user}/otp`;
  const secret = (await send(path, { cookie: session.cookie, json: { password: users[user] } })).json!.secret as string;
  clock.nextStep();
  expect((await send(path, { method: 'PUT', cookie: session.cookie, json: { code: clock.code(secret) } })).status).toBe(200);
  return secret;
}

/** The href of the link whose whole text is `text`, or undefined. */
const hrefOf = (page: Answer, text: string): string | undefined => linkTo(page, `${text}</a>`);

/** The User Admin window's action URL (every form of the window posts to it, the hidden `op` naming the action). */
function actionUrl(page: Answer): string {
  return unescapeHtml(/<form method="post" action="([^"]*\/action\/users[^"]*)"/.exec(page.text)![1]);
}

describe('an administrator without a second factor of her own', () => {
  // alice's portal session; its core session is made by the gateway with the client principal (level 1).
  const alice = () => Browser.loggedIn(portal, 'employees/alice', ['admin']);

  test("bob's view says why his second factor cannot be removed yet, and leads to Self-Service, not to a step-up", async () => {
    const view = await alice().get(BOB);
    expect(view.status).toBe(200);
    expect(view.text).toContain('<dt class="portlet-form-label">Two-step sign-in</dt><dd>On (10 of 10 recovery codes left)</dd>');
    expect(view.text).not.toContain('Remove second factor');
    expect(view.text).not.toContain('/portal/step-up');
    expect(view.text).toContain(`<p class="portlet-msg-info" role="status">${EXPLANATION}</p>`);
    expect(hrefOf(view, 'Turn on two-step sign-in in Self-Service')).toBe('/portal/page/home');
    // The other controls are as before.
    expect(hrefOf(view, 'Delete')).toContain('users.p.view=delete');
  });

  test("a subject without a factor shows no explanation: there is nothing to remove", async () => {
    const view = await alice().get('/portal/page/admin?users.p.view=show&users.p.subject=alice');
    expect(view.text).toContain('<dd>Off</dd>');
    expect(view.text).not.toContain(EXPLANATION);
  });

  test('the removal page, reached by its URL, explains instead of asking for a confirmation', async () => {
    const page = await alice().get('/portal/page/admin?users.p.view=otp&users.p.subject=bob');
    expect(page.text).toContain(EXPLANATION);
    expect(page.text).not.toContain('name="op" value="removeOtp"');
    expect(hrefOf(page, 'Back to bob')).toContain('users.p.view=show');
  });

  test('a removal posted anyway is refused by the core, and the window says why instead of offering a step-up', async () => {
    const browser = alice();
    // The list's search form gives the window's action URL; the removal's own form is shown nowhere.
    const page = await browser.get('/portal/page/admin');
    const posted = await browser.post(actionUrl(page), { op: 'removeOtp', target: 'bob', view: 'otp', subject: 'bob' });
    expect(posted.status).toBe(303);
    const after = await browser.get(posted.location!);
    expect(after.text).toContain('The second factor of bob was not removed.');
    expect(after.text).toContain(EXPLANATION);
    expect(after.text).not.toContain('Confirm it is you');
    expect(core.core.secondFactors.has({ contextId: 'employees', uniqueId: 'bob' })).toBe(true);
  });

  test('the step-up page says the same, with no form that could never succeed', async () => {
    const browser = alice();
    const page = await browser.get(`/portal/step-up?goto=${encodeURIComponent(BOB)}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain('you have none: your password alone cannot confirm it. Turn on two-step sign-in in Self-Service first, then try again.');
    expect(page.text).not.toContain('for="portal-password"');
    expect(hrefOf(page, 'Turn on two-step sign-in in Self-Service')).toBe('/portal/page/home');
    expect(hrefOf(page, 'Back')).toBe(BOB);
  });

  test('a step-up form sent anyway (her password alone) says it too, rather than going back to what asked for it', async () => {
    const browser = alice();
    const page = await browser.get(BOB);
    const answer = await browser.post('/portal/step-up', { _csrf: tokenOf(page.text), goto: BOB, password: users.alice });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('Turn on two-step sign-in in Self-Service first, then try again.');
    // Still her session, and still no way to remove bob's factor.
    expect(browser.cookies.has(PORTAL_SESSION_COOKIE)).toBe(true);
    expect((await browser.get(BOB)).text).toContain(EXPLANATION);
  });

  test('once she has a factor of her own, the view offers the step-up again, and the step-up page its form', async () => {
    await enroll('alice');
    const browser = alice();
    const view = await browser.get(BOB);
    expect(view.text).not.toContain(EXPLANATION);
    // Her session is level 1, and she has a factor now: administering asks for a step-up first.
    expect(view.text).toContain('Confirm it is you');
    const page = await browser.get(`/portal/step-up?goto=${encodeURIComponent(BOB)}`);
    expect(page.text).toContain('for="portal-password"');
    expect(page.text).not.toContain('Turn on two-step sign-in in Self-Service');
  });
});

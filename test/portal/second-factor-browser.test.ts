/**
 * Two-step sign-in in a real browser (Debian's Chromium through playwright-core), with the real
 * core, gateway and portal (the demo's pages and portlets) in this process: bob turns it on in
 * Self-Service and logs in with a code with JavaScript off (every step is a form); alice does the
 * same with JavaScript on, every page checked by axe-core at 375 and 1280 px (no violation, no
 * sideways scrolling) and kept as a screenshot in test-artifacts/demo-browser (otp-*; `npm run
 * screenshots` keeps two under docs/screenshots for portlets.md), then steps up
 * from User Admin's page. Before that, with no factor of her own, User Admin shows her why she
 * cannot remove bob's (and the way to Self-Service) and the step-up page says the same. Codes are Debian's oathtool's; the core's clock is injected, so each code's
 * step is chosen, never waited for. Skipped with a message when Chromium is absent.
 */
import { mkdirSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { ARTIFACTS, closeAndCheck, Person } from '../demo/demo-browser';
import { TotpClock } from '../helpers/totp-clock';
import { TEST_CREDENTIALS } from '../helpers/core-server';
import { CHROMIUM_PATH, chromiumRequirement, describeWithService } from '../helpers/services';
import { startDemoStack, type DemoStack, type TestPortal } from './portal-helpers';

const { users } = TEST_CREDENTIALS;
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** The core's clock, moved a TOTP step at a time. */
const clock = new TotpClock();

// Logins, password hashes and axe at two widths on every page, on a 2-core machine shared with other
// suites: the limit guards against a hang, it is not a timing.
jest.setTimeout(120_000);

describeWithService(chromiumRequirement(), 'two-step sign-in in a real browser', () => {
  let portal: TestPortal;
  let stack: DemoStack | undefined;
  let base: string;
  let browser: Browser;
  const people: Person[] = [];

  beforeAll(async () => {
    ({ portal } = stack = await startDemoStack({ now: clock.now }, 'svc-otp-browser-'));
    base = `${portal.url}/portal`;
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  async function person(name: string, javaScript = true): Promise<Person> {
    const context = await browser.newContext({ javaScriptEnabled: javaScript, viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(10_000);
    const one = new Person(name, context, await context.newPage());
    people.push(one);
    return one;
  }

  // Every page every person saw: no accessibility violation, no console error.
  afterEach(() => closeAndCheck(people));

  /** Turns two-step sign-in on in the Self-Service window (`look`: axe and screenshots on each page); the secret. */
  async function turnOn(who: Person, password: string, look: boolean): Promise<string> {
    const me = who.window('Self-Service');
    expect(await me.textContent()).toContain('Two-step sign-in is off');
    if (look) await who.look('otp-profile-off');
    await who.submit(() => me.getByRole('link', { name: 'Turn on two-step sign-in' }).click());
    await who.control(me, 'Your password').fill(password);
    if (look) await who.look('otp-start');
    await who.submit(() => me.getByRole('button', { name: 'Continue' }).click());
    await expectVisible(me.getByRole('img', { name: /QR code/ }));
    if (look) await who.look('otp-confirm', { readme: 1280 });
    const secret = (await me.locator('code.svc-secret').textContent())!.replace(/\s/g, '');
    clock.nextStep();
    await who.control(me, 'Code').fill(clock.code(secret));
    await who.submit(() => me.getByRole('button', { name: 'Turn on' }).click());
    expect(await me.textContent()).toContain('Your recovery codes');
    expect(await me.locator('ol.svc-codes li').count()).toBe(10);
    if (look) await who.look('otp-codes', { readme: 375 });
    return secret;
  }

  async function expectVisible(locator: ReturnType<Person['page']['locator']>): Promise<void> {
    expect(await locator.isVisible()).toBe(true);
  }

  /** Logs in on the portal's two pages: password, then code. */
  async function logInWithCode(who: Person, user: 'alice' | 'bob', secret: string, look: boolean): Promise<void> {
    await who.page.goto(`${base}/login`);
    await who.page.getByLabel('User name').fill(user);
    await who.page.getByLabel('Password', { exact: true }).fill(users[user]);
    await who.submit(() => who.page.getByRole('button', { name: 'Log in' }).click());
    expect(await who.page.getByLabel('Code').isVisible()).toBe(true);
    if (look) await who.look('otp-login-code');
    clock.nextStep();
    await who.page.getByLabel('Code').fill(clock.code(secret));
    await who.submit(() => who.page.getByRole('button', { name: 'Log in' }).click());
    expect(await who.page.locator('.portal-user').textContent()).toContain(`employees/${user}`);
  }

  test('bob, JavaScript off: turns it on in Self-Service, then logs in with his password and a code', async () => {
    const bob = await person('bob', false);
    await bob.logIn(base, 'bob', users.bob);
    const secret = await turnOn(bob, users.bob, false);
    await bob.submit(() => bob.page.getByRole('button', { name: 'Log out' }).click());
    await logInWithCode(bob, 'bob', secret, false);
    expect(await bob.window('Self-Service').textContent()).toContain('Two-step sign-in is on');
  });

  test("alice before she has a factor of her own, checked by axe at 375 and 1280 px: User Admin explains instead of offering to remove bob's, and so does the step-up page", async () => {
    // bob turned two-step sign-in on in the test above; alice has none of her own.
    const alice = await person('alice-no-factor');
    await alice.logIn(base, 'alice', users.alice);
    const bobsView = `${base}/page/admin?users.p.view=show&users.p.subject=bob`;
    await alice.page.goto(bobsView);
    const admin = alice.window('User Admin');
    expect(await admin.textContent()).toContain('On (10 of 10 recovery codes left)');
    expect(await admin.getByRole('link', { name: /Remove second factor/ }).count()).toBe(0);
    expect(await admin.getByRole('status').textContent()).toBe('To remove a second factor you must confirm it is you with your own second factor, and you have none. Turn on two-step sign-in in Self-Service first.');
    await alice.look('otp-admin-own-factor-needed');
    await alice.submit(() => admin.getByRole('link', { name: 'Turn on two-step sign-in in Self-Service' }).click());
    expect(new URL(alice.page.url()).pathname).toBe('/portal/page/home');
    expect(await alice.window('Self-Service').getByRole('link', { name: 'Turn on two-step sign-in' }).count()).toBe(1);

    await alice.page.goto(`${base}/step-up?goto=${encodeURIComponent(new URL(bobsView).pathname + new URL(bobsView).search)}`);
    expect(await alice.page.getByLabel('Password', { exact: true }).count()).toBe(0);
    expect(await alice.page.getByRole('status').textContent()).toContain('Turn on two-step sign-in in Self-Service first, then try again.');
    await alice.look('otp-step-up-no-factor');
    await alice.submit(() => alice.page.getByRole('link', { name: 'Back' }).click());
    expect(alice.page.url()).toBe(bobsView);
  });

  test('alice, every page checked by axe at 375 and 1280 px: enrollment, the login\'s code, and a step-up from User Admin', async () => {
    const alice = await person('alice');
    await alice.logIn(base, 'alice', users.alice);
    const secret = await turnOn(alice, users.alice, true);
    await alice.submit(() => alice.window('Self-Service').getByRole('link', { name: /back to my profile/ }).click());
    expect(await alice.window('Self-Service').textContent()).toContain('10 of 10 recovery codes are left');
    await alice.look('otp-profile-on');

    // Her session is level 2 (her password, before she had a factor): administering needs a step-up.
    await alice.page.goto(`${base}/page/admin`);
    await alice.look('otp-admin-step-up');
    await alice.submit(() => alice.window('User Admin').getByRole('link', { name: 'Confirm it is you' }).click());
    expect(new URL(alice.page.url()).pathname).toBe('/portal/step-up');
    await alice.look('otp-step-up');
    await alice.page.getByLabel('Password', { exact: true }).fill(users.alice);
    await alice.submit(() => alice.page.getByRole('button', { name: 'Continue' }).click());
    await alice.look('otp-step-up-code');
    clock.nextStep();
    await alice.page.getByLabel('Code').fill(clock.code(secret));
    await alice.submit(() => alice.page.getByRole('button', { name: 'Confirm' }).click());
    expect(new URL(alice.page.url()).pathname).toBe('/portal/page/admin');
    expect(await alice.window('User Admin').getByRole('button', { name: 'Search' }).count()).toBeGreaterThan(0);
    await alice.look('otp-admin-after-step-up');

    await alice.submit(() => alice.page.getByRole('button', { name: 'Log out' }).click());
    await logInWithCode(alice, 'alice', secret, true);
  });
});

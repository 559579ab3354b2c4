/**
 * The demo as a person meets it (issue 14): `svc demo` started as `npm start` starts it, driven in
 * Debian's Chromium through playwright-core, every step confirmed through the core's REST API as
 * `svcadmin`. axe-core finds no violation on any page visited (the portal's and the core's), no page
 * scrolls sideways or logs a console error, and each page is kept as a screenshot at 375 px and
 * 1280 px in test-artifacts/demo-browser. Skipped with a message when Chromium is absent.
 */
import { chromiumRequirement, describeWithService } from '../helpers/services';
import { join } from 'node:path';
import { ARTIFACTS, closeAndCheck, Demo, type Person } from './demo-browser';

const BOB_NEW = 'Bob-changed-Pa55word';
const CAROL = 'Carol-initial-Pa55word';
const DANA = 'Dana-registered-Pa55word';
const DANA_RESET = 'Dana-reset-by-link-Pa55word';
const BOB_RESET = 'Bob-reset-Pa55word';

// Each test walks several pages with logins and password hashes in a real browser: 25 s alone on a
// 2-core machine, more beside the other jest worker. The limit is a guard against a hang, not a timing.
jest.setTimeout(120_000);

describeWithService(chromiumRequirement(), 'the demo portal in a real browser', () => {
  let demo: Demo;
  const people: Person[] = [];

  beforeAll(async () => {
    demo = await Demo.start();
  }, 60_000);
  afterAll(async () => {
    if (demo) expect(await demo.stop()).toBe(0);
  });

  async function person(name: string, options?: { javaScript?: boolean }): Promise<Person> {
    const one = await demo.person(name, options);
    people.push(one);
    return one;
  }

  // Every page every person saw: no accessibility violation, no console error.
  afterEach(() => closeAndCheck(people));

  test('bob sees his profile, edits givenName, changes his password, and finds no Administration page or admin control', async () => {
    const bob = await person('bob');
    await bob.logIn(demo.portal, 'bob', demo.credentials.users.bob);
    expect(new URL(bob.page.url()).pathname).toBe('/portal/page/home');
    const me = bob.window('Self-Service');
    expect(await me.textContent()).toContain('bob@example.com');
    await bob.look('self-service', { readme: 1280 });
    expect(await bob.page.getByRole('navigation', { name: 'Pages' }).textContent()).not.toContain('Administration');
    for (const name of ['Create subject', 'Lift lockout', 'Delete', 'Search']) expect(await bob.page.getByRole('button', { name }).count() + (await bob.page.getByRole('link', { name }).count())).toBe(0);
    // The page itself: 403 for him (asked without a tab, so the browser logs no failed load).
    expect((await bob.context.request.get(`${demo.portal}/page/admin`, { maxRedirects: 0 })).status()).toBe(403);

    await bob.submit(() => me.getByRole('link', { name: 'Edit profile' }).click());
    await bob.look('self-service-edit');
    await bob.control(me, 'Given name').fill('Robert');
    await bob.submit(() => me.getByRole('button', { name: 'Save profile' }).click());
    expect((await demo.subject('employees', 'bob'))?.givenName).toBe('Robert');
    expect(await me.textContent()).toContain('Robert');

    await bob.submit(() => me.getByRole('link', { name: 'Change password' }).click());
    await bob.control(me, 'Current password').fill(demo.credentials.users.bob);
    await bob.control(me, 'New password').fill(BOB_NEW);
    await bob.control(me, 'Repeat the new password').fill(BOB_NEW);
    await bob.look('self-service-password');
    await bob.submit(() => me.getByRole('button', { name: 'Change password' }).click());
    expect((await demo.coreLogin('bob', BOB_NEW)).status).toBe(200);
    expect((await demo.coreLogin('bob', demo.credentials.users.bob)).status).not.toBe(200);
    await bob.look('self-service-changed');
  });

  /** alice, logged in, on the Administration page. */
  async function aliceOnAdmin(name = 'alice') {
    const alice = await person(name);
    await alice.logIn(demo.portal, 'alice', demo.credentials.users.alice);
    await alice.submit(() => alice.page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Administration' }).click());
    return { alice, admin: alice.window('User Admin') };
  }

  test('alice searches as she types: the results come through {portal}/api, with the controls the check allows', async () => {
    const { alice, admin } = await aliceOnAdmin();
    await alice.look('admin', { readme: 1280 });
    await admin.getByRole('searchbox', { name: 'Search' }).pressSequentially('bo');
    await admin.locator('[role=status]', { hasText: '1 subject matches.' }).waitFor();
    expect(await admin.locator('tbody th').allTextContents()).toEqual(['bob']);
    const core = await demo.asAdmin('/contexts/employees/subjects?search=bo');
    expect((core.json!.results as Array<{ uniqueId: string }>).map((s) => s.uniqueId)).toEqual(['bob']);
    for (const name of ['View bob', 'Edit bob', 'Delete bob']) expect(await admin.getByRole('link', { name }).count()).toBe(1);
    // bob is not locked: his row says Active and offers no Lift lockout.
    expect(await admin.locator('tbody tr', { hasText: 'bob' }).locator('.svc-status').textContent()).toBe('Active');
    expect(await admin.getByRole('button', { name: 'Lift lockout of bob' }).count()).toBe(0);
    // The typed row has its checkbox for the bulk form, and Export CSV follows the typed search.
    expect(await admin.getByRole('checkbox', { name: 'Select bob' }).count()).toBe(1);
    expect(await admin.getByRole('link', { name: 'Export CSV' }).getAttribute('href')).toBe('/portal/api/contexts/employees/subjects?search=bo&format=csv');
    await alice.look('admin-typed', { readme: 375 });
    // The typed row's links lead where the server's do.
    await alice.submit(() => admin.getByRole('link', { name: 'View bob' }).click());
    expect(await admin.locator('h3').textContent()).toBe('bob');
  });

  test('alice creates a subject, then edits it', async () => {
    const { alice, admin } = await aliceOnAdmin();
    await alice.submit(() => admin.getByRole('link', { name: 'Create subject' }).click());
    await alice.control(admin, 'User name').fill('carol');
    await alice.control(admin, 'E-mail address').fill('carol@example.com');
    await alice.control(admin, 'Given name').fill('Carol');
    await alice.control(admin, 'Family name').fill('Clark');
    await alice.control(admin, 'Password').fill(CAROL);
    await alice.control(admin, 'Repeat the password').fill(CAROL);
    await alice.look('admin-create');
    await alice.submit(() => admin.getByRole('button', { name: 'Create subject' }).click());
    expect(await demo.subject('employees', 'carol')).toMatchObject({ mail: 'carol@example.com', givenName: 'Carol', familyName: 'Clark' });
    expect((await demo.coreLogin('carol', CAROL)).status).toBe(200);

    await alice.page.goto(`${demo.portal}/page/admin`);
    await alice.submit(() => admin.getByRole('link', { name: 'Edit carol' }).click());
    await alice.control(admin, 'Family name').fill('Carter');
    await alice.look('admin-edit');
    await alice.submit(() => admin.getByRole('button', { name: 'Save' }).click());
    expect((await demo.subject('employees', 'carol'))?.familyName).toBe('Carter');
  });

  test('alice lifts the lockout of a subject locked after five wrong passwords', async () => {
    for (let i = 0; i < 5; i++) expect((await demo.coreLogin('carol', `wrong-${i}`)).status).not.toBe(200);
    expect((await demo.coreLogin('carol', CAROL)).status).not.toBe(200);
    const { alice, admin } = await aliceOnAdmin();
    await alice.submit(() => admin.getByRole('button', { name: 'Lift lockout of carol' }).click());
    await alice.look('admin-lifted');
    expect((await demo.coreLogin('carol', CAROL)).status).toBe(200);
  });

  test('alice deletes a subject after the confirmation; the form sent again (Back, submit) does no harm and the window says why', async () => {
    const { alice, admin } = await aliceOnAdmin();
    const before = (await demo.asAdmin('/contexts/employees/subjects')).json!.total as number;
    await alice.submit(() => admin.getByRole('link', { name: 'Delete carol' }).click());
    expect(await demo.subject('employees', 'carol')).not.toBeNull();
    await alice.look('admin-delete');
    await alice.submit(() => admin.getByRole('button', { name: 'Delete carol' }).click());
    expect(await demo.subject('employees', 'carol')).toBeNull();

    await alice.page.goBack();
    await alice.submit(() => admin.getByRole('button', { name: 'Delete carol' }).click());
    expect(await admin.locator('[role=alert]').textContent()).toContain('already deleted');
    await alice.look('admin-deleted-twice');
    expect((await demo.asAdmin('/contexts/employees/subjects')).json!.total).toBe(before - 1);
    expect(await demo.subject('employees', 'alice')).not.toBeNull();
  });

  test('with scripts off, alice searches through the form', async () => {
    const alice = await person('alice-noscript', { javaScript: false });
    await alice.logIn(demo.portal, 'alice', demo.credentials.users.alice);
    await alice.page.goto(`${demo.portal}/page/admin`);
    const admin = alice.window('User Admin');
    await alice.control(admin, 'Search').fill('ali');
    await alice.submit(() => admin.getByRole('button', { name: 'Search' }).click());
    expect(await admin.locator('tbody th').allTextContents()).toEqual(['alice']);
    const core = await demo.asAdmin('/contexts/employees/subjects?search=ali');
    expect((core.json!.results as Array<{ uniqueId: string }>).map((s) => s.uniqueId)).toEqual(['alice']);
    // axe-core runs in the page, so it needs scripts: this page's markup is the one the other tests audit.
    await alice.page.screenshot({ path: join(ARTIFACTS, 'alice-noscript-admin-form-search-1280.png'), fullPage: true });
  });

  test('a visitor registers in customers, follows the link from the mailbox page, logs in, then recovers the password by link', async () => {
    const visitor = await person('visitor');
    await visitor.page.goto(`${demo.portal}/`);
    expect(new URL(visitor.page.url()).pathname).toBe('/portal/page/home');
    await visitor.look('visitor-home', { readme: 1280 });
    const form = visitor.window('Registration');
    await visitor.control(form, 'User name').fill('dana');
    await visitor.control(form, 'E-mail address').fill('dana@example.net');
    await visitor.control(form, 'Given name').fill('Dana');
    await visitor.control(form, 'Family name').fill('Doe');
    await visitor.control(form, 'Password').fill(DANA);
    await visitor.control(form, 'Repeat the password').fill(DANA);
    await visitor.submit(() => form.getByRole('button', { name: 'Register' }).click());
    expect(await demo.subject('customers', 'dana')).toMatchObject({ mail: 'dana@example.net', givenName: 'Dana' });
    expect(await visitor.window('Registration').textContent()).toContain('Check your mail');
    await visitor.look('registered');
    // Not before the link: the right password says why.
    expect((await demo.coreLogin('dana', DANA)).text).toContain('Confirm your e-mail address first');

    // The mailbox page lists the message; its link opens the core's page, whose button confirms.
    await demo.mail('dana@example.net', 'Confirm your e-mail address');
    await visitor.page.goto(demo.mailbox);
    await visitor.look('mailbox', { readme: 1280 });
    await visitor.submit(() => visitor.page.getByRole('link', { name: /\/anon\/verify\?token=/ }).first().click());
    await visitor.look('verify');
    await visitor.submit(() => visitor.page.getByRole('button', { name: 'Confirm my address' }).click());
    expect(await visitor.page.locator('main').textContent()).toContain('Your address is confirmed');

    await visitor.logIn(demo.portal, 'dana', DANA);
    expect(await visitor.window('Self-Service').textContent()).toContain('dana@example.net');

    // She forgets it: a link by mail, back to the portal's window, where she chooses a new one.
    const forgetful = await person('forgot-link');
    await forgetful.page.goto(`${demo.portal}/page/home`);
    const flow = forgetful.window('Forgotten Password');
    await forgetful.control(flow, 'User name or e-mail address').fill('dana@example.net');
    await forgetful.submit(() => flow.getByRole('button', { name: 'Send me a link by e-mail' }).click());
    expect(await forgetful.window('Forgotten Password').textContent()).toContain('If the name is known, a link is on its way.');
    await forgetful.look('forgot-link-sent');
    const reset = await demo.mail('dana@example.net', 'Choose a new password');
    const link = reset.text.split('\n').find((line) => line.startsWith('http'))!;
    expect(link.startsWith(`${demo.portal}/page/home?`)).toBe(true);
    await forgetful.page.goto(demo.mailbox);
    await forgetful.submit(() => forgetful.page.getByRole('link', { name: link, exact: true }).first().click());
    const window = forgetful.window('Forgotten Password');
    await forgetful.control(window, 'New password').fill(DANA_RESET);
    await forgetful.control(window, 'Repeat the new password').fill(DANA_RESET);
    await forgetful.look('forgot-link-password');
    await forgetful.submit(() => window.getByRole('button', { name: /^Set the new password/ }).click());
    expect(new URL(forgetful.page.url()).pathname).toBe('/portal/login');
    expect((await demo.coreLogin('dana', DANA)).status).toBe(401);
    await forgetful.logIn(demo.portal, 'dana', DANA_RESET);
    expect(await forgetful.window('Self-Service').textContent()).toContain('dana@example.net');
  });

  test('a visitor runs the forgotten-password flow for bob with his answers; bob then logs in with the new password', async () => {
    const visitor = await person('forgot');
    await visitor.page.goto(`${demo.portal}/page/home`);
    const flow = visitor.window('Forgotten Password');
    await visitor.control(flow, 'User name or e-mail address').fill('bob');
    await visitor.submit(() => flow.getByRole('button', { name: 'Answer my security questions' }).click());
    await visitor.look('forgot-questions');
    await visitor.control(flow, 'What was the name of your first pet?').fill(demo.credentials.answers.bob[0]);
    await visitor.control(flow, 'In which city were you born?').fill(demo.credentials.answers.bob[1]);
    await visitor.submit(() => flow.getByRole('button', { name: 'Check the answers' }).click());
    await visitor.control(flow, 'New password').fill(BOB_RESET);
    await visitor.control(flow, 'Repeat the new password').fill(BOB_RESET);
    await visitor.submit(() => flow.getByRole('button', { name: /^Set the new password/ }).click());
    expect(new URL(visitor.page.url()).pathname).toBe('/portal/login');
    expect((await demo.coreLogin('bob', BOB_RESET)).status).toBe(200);

    await visitor.logIn(demo.portal, 'bob', BOB_RESET);
    expect(await visitor.window('Self-Service').textContent()).toContain('bob@example.com');
  });

  test('with scripts off, alice changes her e-mail address: Self-Service shows the change pending until the link is followed', async () => {
    const alice = await person('alice-mail', { javaScript: false });
    await alice.logIn(demo.portal, 'alice', demo.credentials.users.alice);
    const me = alice.window('Self-Service');
    await alice.submit(() => me.getByRole('link', { name: 'Change e-mail address' }).click());
    await alice.control(me, 'New e-mail address').fill('alice@new.example');
    await alice.control(me, 'Your password').fill(demo.credentials.users.alice);
    await alice.submit(() => me.getByRole('button', { name: 'Send the link' }).click());
    expect(await alice.window('Self-Service').textContent()).toContain('Check your mail at alice@new.example');
    await alice.page.reload();
    expect(await alice.window('Self-Service').textContent()).toContain('Your new address alice@new.example waits for confirmation');
    // axe-core runs in the page, so it needs scripts: the same views, audited with them on.
    await alice.page.screenshot({ path: join(ARTIFACTS, 'alice-noscript-self-service-mail-pending-1280.png'), fullPage: true });
    const audited = await person('alice-mail-audit');
    await audited.logIn(demo.portal, 'alice', demo.credentials.users.alice);
    await audited.look('self-service-mail-pending');
    await audited.submit(() => audited.window('Self-Service').getByRole('link', { name: 'Change e-mail address' }).click());
    await audited.look('self-service-mail');

    expect(await demo.subject('employees', 'alice')).toMatchObject({ mail: 'alice@example.com' });
    await demo.mail('alice@example.com', 'Your e-mail address is being changed');
    const confirm = await demo.mail('alice@new.example', 'Confirm your new e-mail address');
    await alice.page.goto(confirm.text.split('\n').find((line) => line.startsWith('http'))!);
    await alice.submit(() => alice.page.getByRole('button', { name: 'Confirm my address' }).click());
    expect(await demo.subject('employees', 'alice')).toMatchObject({ mail: 'alice@new.example' });
  });

  test("the core's own pages have no accessibility violation either", async () => {
    const visitor = await person('core');
    for (const [path, shot] of [['/', 'core-home'], ['/login', 'core-login'], ['/anon/register', 'core-register'], ['/anon/forgot', 'core-forgot'], ['/anon/reset', 'core-reset'], ['/anon/verify', 'core-verify']]) {
      await visitor.page.goto(`${demo.core}${path}`);
      await visitor.look(shot);
    }
  });
});

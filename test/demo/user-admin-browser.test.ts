/**
 * User Admin as an administrator uses it (issue 29, SPEC 10.4), in Debian's Chromium against `svc
 * demo` as `npm start` runs it: sort by a header, lock a subject with wrong passwords and see it
 * marked, lift it, bulk-disable three, export the CSV and read it, read a subject's events; the same
 * without JavaScript. Every step is confirmed through the core's REST API as `svcadmin`; every page
 * is axe-clean at 375 px and 1280 px without sideways scrolling (Person.look), and kept as
 * screenshots in test-artifacts/demo-browser. Skipped with a message when Chromium is absent.
 */
import { readFileSync } from 'node:fs';
import { chromiumRequirement, describeWithService } from '../helpers/services';
import { closeAndCheck, Demo, type Person } from './demo-browser';

// Logins with password hashes and a real browser on a 2-core machine: the limit is a guard against a hang, not a timing.
jest.setTimeout(180_000);

const PASSWORD = 'Staff-initial-Pa55word';
/** uniqueId, given name, family name: their family names sort otherwise than their ids. */
const STAFF: Array<[string, string, string]> = [
  ['gina', 'Gina', 'Zimmer'],
  ['hugo', 'Hugo', 'Young'],
  ['ivan', 'Ivan', 'Xu'],
  ['jana', 'Jana', 'Weber'],
  ['karl', 'Karl', 'Vogel'],
];

describeWithService(chromiumRequirement(), 'User Admin in a real browser', () => {
  let demo: Demo;
  const people: Person[] = [];

  beforeAll(async () => {
    demo = await Demo.start();
    for (const [id, given, family] of STAFF) {
      const sent = await demo.asAdmin('/contexts/employees/subjects', { method: 'POST', json: { subject: { uniqueId: id, attributes: { mail: `${id}@example.com`, givenName: given, familyName: family, password: PASSWORD } } } });
      if (sent.status !== 201) throw new Error(`creating ${id}: ${sent.status} ${sent.text}`);
    }
  }, 90_000);
  afterAll(async () => {
    if (demo) expect(await demo.stop()).toBe(0);
  });

  // Every page every person saw: no accessibility violation, no console error.
  afterEach(() => closeAndCheck(people));

  async function aliceOnAdmin(name: string, options?: { javaScript?: boolean }) {
    const alice = await demo.person(name, options);
    people.push(alice);
    await alice.logIn(demo.portal, 'alice', demo.credentials.users.alice);
    await alice.page.goto(`${demo.portal}/page/admin`);
    return { alice, admin: alice.window('User Admin') };
  }

  /** The core's order of a search, as svcadmin reads it. */
  async function coreOrder(query: string): Promise<string[]> {
    const sent = await demo.asAdmin(`/contexts/employees/subjects?${query}`);
    return (sent.json!.results as Array<{ uniqueId: string }>).map((s) => s.uniqueId);
  }

  test('sort, lock and see it marked, lift it, bulk-disable three, export and read the CSV, read the events', async () => {
    const { alice, admin } = await aliceOnAdmin('ua');
    const rows = () => admin.locator('tbody th[scope=row]').allTextContents();
    const header = (name: string) => admin.locator('thead th', { has: alice.page.getByRole('link', { name: new RegExp(`^${name}`) }) });
    expect(await header('User name').getAttribute('aria-sort')).toBe('ascending');
    await alice.look('ua-list');

    // Sort: the header is a link (a render URL); the order is the core's, and a second press turns it.
    await alice.submit(() => header('Family name').getByRole('link').click());
    expect(new URL(alice.page.url()).searchParams.get('users.p.sort')).toBe('familyName');
    expect(await header('Family name').getAttribute('aria-sort')).toBe('ascending');
    expect(await header('User name').getAttribute('aria-sort')).toBeNull();
    expect(await rows()).toEqual(await coreOrder('sort=familyName'));
    await alice.submit(() => header('Family name').getByRole('link').click());
    expect(await header('Family name').getAttribute('aria-sort')).toBe('descending');
    expect(await rows()).toEqual(await coreOrder('sort=familyName&order=desc'));
    await alice.look('ua-sorted');

    // Lock hugo with wrong passwords: his row is marked and alone offers Lift lockout.
    for (let i = 0; i < 5; i++) expect((await demo.coreLogin('hugo', `wrong-${i}`)).status).not.toBe(200);
    expect((await demo.coreLogin('hugo', PASSWORD)).status).not.toBe(200);
    await alice.page.reload();
    const hugo = admin.locator('tbody tr', { has: alice.page.locator('th', { hasText: /^hugo$/ }) });
    expect(await hugo.locator('.svc-status').textContent()).toMatch(/^Locked until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    expect(await admin.getByRole('button', { name: /^Lift lockout of / }).count()).toBe(1);
    expect(await admin.getByRole('button', { name: 'Lift lockout of hugo' }).count()).toBe(1);
    await alice.look('admin-status', { readme: 1280 });
    // At 375 px the rows stack: hugo's actions lie within the screen's width.
    await alice.page.setViewportSize({ width: 375, height: 900 });
    await alice.keepForReadme(admin.locator('.svc-bulk'), admin.locator('tbody tr').nth(2), 'admin-phone');
    for (const control of [admin.getByRole('link', { name: 'View hugo' }), admin.getByRole('button', { name: 'Lift lockout of hugo' }), admin.getByRole('checkbox', { name: 'Select hugo' })]) {
      const box = (await control.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(375);
    }
    await alice.page.setViewportSize({ width: 1280, height: 900 });
    await alice.submit(() => admin.getByRole('button', { name: 'Lift lockout of hugo' }).click());
    expect(await admin.locator('[role=status]').first().textContent()).toContain('Every lockout of hugo was lifted');
    expect(await hugo.locator('.svc-status').textContent()).toBe('Active');
    expect((await demo.coreLogin('hugo', PASSWORD)).status).toBe(200);

    // The script's "Select all on this page" checks every row's box (alice's own row has none), and unchecks them.
    const boxes = admin.locator('tbody input[type=checkbox][name=selected]');
    await admin.getByRole('checkbox', { name: 'Select all on this page' }).check();
    expect(await boxes.evaluateAll((all) => all.filter((b) => (b as unknown as { checked: boolean }).checked).length)).toBe((await rows()).length - 1);
    await admin.getByRole('checkbox', { name: 'Select all on this page' }).uncheck();
    expect(await boxes.evaluateAll((all) => all.filter((b) => (b as unknown as { checked: boolean }).checked).length)).toBe(0);

    // Bulk: three rows checked, one action, one confirmation page listing them.
    for (const id of ['gina', 'ivan', 'jana']) await admin.getByRole('checkbox', { name: `Select ${id}` }).check();
    await admin.getByLabel('With the selected subjects').selectOption('disable');
    await alice.submit(() => admin.getByRole('button', { name: 'Continue' }).click());
    expect(await admin.locator('ul.svc-list li').allTextContents()).toEqual(['gina', 'ivan', 'jana']);
    for (const id of ['gina', 'ivan', 'jana']) expect((await demo.subject('employees', id))?.disabled).toBeUndefined();
    await alice.look('ua-bulk-confirm');
    await alice.submit(() => admin.getByRole('button', { name: 'Disable 3 subjects' }).click());
    expect(await admin.locator('[role=status]').first().textContent()).toContain('3 subjects were disabled: gina, ivan, jana.');
    for (const id of ['gina', 'ivan', 'jana']) expect((await demo.subject('employees', id))?.disabled).toBe('true');
    expect((await demo.coreLogin('gina', PASSWORD)).status).not.toBe(200);
    expect(await admin.locator('tbody tr', { has: alice.page.locator('th', { hasText: /^ivan$/ }) }).locator('.svc-status').textContent()).toBe('Disabled');
    await alice.look('ua-bulk-done');

    // Export CSV: a plain link through {portal}/api; the file holds every subject of the search in its order.
    const [download] = await Promise.all([alice.page.waitForEvent('download'), admin.getByRole('link', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8').trim().split(/\r?\n/);
    expect(csv[0].split(',')[0]).toBe('uniqueId');
    expect(csv.slice(1).map((line) => line.split(',')[0])).toEqual(await coreOrder('sort=familyName&order=desc&quantity=1000'));
    expect(csv.find((line) => line.startsWith('ivan,'))).toContain('ivan@example.com');

    // Events: hugo's view lists his last 20, newest first, with a link to the older ones.
    for (let i = 0; i < 20; i++) await demo.coreLogin('hugo', `wrong-again-${i}`);
    await alice.submit(() => admin.getByRole('link', { name: 'View hugo' }).click());
    const events = admin.locator('table.svc-events tbody tr');
    expect(await events.count()).toBe(20);
    const total = (await demo.asAdmin('/contexts/employees/subjects/hugo/events')).json!.total as number;
    expect(total).toBeGreaterThan(20);
    expect(await admin.locator('table.svc-events').textContent()).toContain('LoginFailed (locked)');
    await alice.look('ua-events');
    await alice.submit(() => admin.getByRole('link', { name: 'Older events of hugo' }).click());
    expect(await admin.locator('table.svc-events caption').textContent()).toBe(`Events 21 to ${Math.min(total, 40)} of ${total} of hugo, newest first`);
    // The oldest: svcadmin created hugo.
    if (total <= 40) expect(await admin.locator('table.svc-events tbody tr').last().textContent()).toMatch(/ChangedSucceeded \(create\)\/?svcadmin/);
    await alice.look('ua-events-older');
  });

  test('without JavaScript: sort by a header, check rows, confirm, and enable them again', async () => {
    const { alice, admin } = await aliceOnAdmin('ua-noscript', { javaScript: false });
    await alice.submit(() => admin.getByRole('link', { name: /^Given name/ }).click());
    expect(await admin.locator('tbody th[scope=row]').allTextContents()).toEqual(await coreOrder('sort=givenName'));
    for (const id of ['gina', 'ivan']) await admin.getByRole('checkbox', { name: `Select ${id}` }).check();
    await admin.getByLabel('With the selected subjects').selectOption('enable');
    await alice.submit(() => admin.getByRole('button', { name: 'Continue' }).click());
    expect(await admin.locator('ul.svc-list li').allTextContents()).toEqual(['gina', 'ivan']);
    await alice.submit(() => admin.getByRole('button', { name: 'Enable 2 subjects' }).click());
    expect(await admin.locator('[role=status]').first().textContent()).toContain('2 subjects were enabled: gina, ivan.');
    // The order chosen before the bulk action is still the list's.
    expect(await admin.locator('tbody th[scope=row]').allTextContents()).toEqual(await coreOrder('sort=givenName'));
    for (const id of ['gina', 'ivan']) expect((await demo.subject('employees', id))?.disabled).toBe('false');
    expect((await demo.coreLogin('gina', PASSWORD)).status).toBe(200);
  });

  // The pager's buttons need no script (the form posts the ticks); with it on, axe can look at the page.
  test('a selection kept across pages (the pager posts the ticks), counted, confirmed as a whole', async () => {
    const { alice, admin } = await aliceOnAdmin('ua-pages');
    await alice.submit(() => admin.getByRole('link', { name: 'Edit User Admin' }).click());
    await alice.control(admin, 'Page size').fill('5');
    await alice.submit(() => admin.getByRole('button', { name: 'Save preferences' }).click());
    const boxes = admin.locator('tbody input[type=checkbox][name=selected]');
    const first = await boxes.first().getAttribute('value');
    await boxes.first().check();
    await alice.submit(() => admin.getByRole('button', { name: 'Next page' }).click());
    expect(await admin.locator('.svc-bulk-carried').textContent()).toBe('1 selected on other pages. Clear the selection');
    const second = await boxes.first().getAttribute('value');
    await boxes.first().check();
    await alice.look('ua-pages-carried');
    await alice.submit(() => admin.getByRole('button', { name: 'Previous page' }).click());
    expect(await admin.getByRole('checkbox', { name: `Select ${first}` }).isChecked()).toBe(true);
    expect(await admin.locator('.svc-bulk-carried').textContent()).toBe('1 selected on other pages. Clear the selection');
    await admin.getByLabel('With the selected subjects').selectOption('enable');
    await alice.submit(() => admin.getByRole('button', { name: 'Continue' }).click());
    expect(await admin.locator('ul.svc-list li').allTextContents()).toEqual([second, first]);
    await alice.submit(() => admin.getByRole('button', { name: 'Enable 2 subjects' }).click());
    expect(await admin.locator('[role=status]').first().textContent()).toContain(`2 subjects were enabled: ${second}, ${first}.`);
    expect(await admin.locator('.svc-bulk-carried').count()).toBe(0);
  });
});

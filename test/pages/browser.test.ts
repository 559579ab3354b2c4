/**
 * One real browser (Debian's Chromium through playwright-core) against a real server: the system
 * user opens the config page, is sent to the login form, logs in, and ends bob's session with the
 * page's button, with the pages' styles allowed by their CSP hashes, and axe finding nothing on either page. Skipped with a message when Chromium is absent, failing instead under
 * SVC_TEST_REQUIRE_ALL=1 (test/helpers/services.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type BrowserContext } from 'playwright-core';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { CHROMIUM_PATH, chromiumRequirement, describeWithService } from '../helpers/services';
import { Visitor } from './visitor';

/** Evaluated in the page (a string: this project's TypeScript has no DOM types). */
const BODY_MAX_WIDTH = 'getComputedStyle(document.body).maxWidth';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

describeWithService(chromiumRequirement(), 'the config page in a real browser', () => {
  let server: TestServer;
  let profile: string;
  let browser: BrowserContext;

  beforeAll(async () => {
    server = await startTestServer();
    // A fresh --user-data-dir: playwright passes the directory given here as that flag.
    profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  test('the system user logs in from the config page and ends bob\'s session with its button', async () => {
    const bob = new Visitor(server);
    await bob.logIn('bob', TEST_CREDENTIALS.users.bob);
    const handle = (await bob.session()).uniqueId as string;

    const page = await browser.newPage();
    const refusedByCsp: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refusedByCsp.push(message.text());
    });
    await page.goto(`${server.baseUrl}/config`);
    expect(new URL(page.url()).pathname).toBe('/svc/login');
    // The page's style element runs under its CSP hash (no 'unsafe-inline'): the form is 28rem wide.
    expect(await page.evaluate(BODY_MAX_WIDTH)).toBe('448px');
    expect((await new AxeBuilder({ page }).analyze()).violations.map((violation) => violation.id)).toEqual([]);
    await page.fill('#user', 'svcadmin');
    await page.fill('#password', TEST_CREDENTIALS.users.svcadmin);
    await Promise.all([page.waitForURL((url) => url.pathname === '/svc/config'), page.click('button[type=submit]')]);
    expect(await page.locator('h1').textContent()).toBe('Configuration');
    expect(await page.evaluate(BODY_MAX_WIDTH)).toBe('1152px');
    expect((await new AxeBuilder({ page }).analyze()).violations.map((violation) => violation.id)).toEqual([]);

    const row = page.locator('tr', { hasText: handle });
    await Promise.all([page.waitForURL((url) => url.search === '?ended=1'), row.getByRole('button', { name: 'End' }).click()]);
    expect(await page.locator('.notice').textContent()).toBe('The session was ended.');
    expect(await page.locator('tr', { hasText: handle }).count()).toBe(0);
    expect((await bob.session()).type).not.toBe('USER');
    expect(refusedByCsp).toEqual([]);
  });
});

/**
 * The aggregated page in a real browser (Debian's Chromium through playwright-core): no violation
 * axe-core reports, and no sideways scrolling at 375 px or 1280 px wide; the window controls work
 * from the keyboard. Skipped with a message when Chromium is absent (test/helpers/services.ts).
 */
import AxeBuilder from '@axe-core/playwright';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_PATH, chromiumRequirement, describeWithService } from '../helpers/services';
import { PORTAL_SESSION_COOKIE } from '../../portlet-adapter/src/portal/session-store';
import { startTestPortal, type TestPortal } from './portal-helpers';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

interface AxeViolation {
  id: string;
  help: string;
  nodes: { target: unknown[] }[];
}

describeWithService(chromiumRequirement(), 'the portal page in a real browser', () => {
  let portal: TestPortal;
  let profile: string;
  let browser: BrowserContext;

  beforeAll(async () => {
    portal = await startTestPortal({
      pages: [
        { id: 'home', title: 'Home', windows: [{ id: 'a', portlet: 'counter' }, { id: 'b', portlet: 'counter', mode: 'edit' }, { id: 'bad', portlet: 'thrower' }, { id: 'slow', portlet: 'hanger' }] },
        { id: 'admin', title: 'Administration', roles: ['admin'], windows: [{ id: 'x', portlet: 'counter' }] },
      ],
      renderTimeoutMs: 200,
    });
    profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await portal?.stop();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  async function audit(page: Page): Promise<AxeViolation[]> {
    const { violations } = await new AxeBuilder({ page }).analyze();
    return violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  }

  for (const width of [375, 1280]) {
    test(`${width} px: a visitor's page and a user's page have no axe violations and no sideways scrolling`, async () => {
      const page = await browser.newPage();
      await page.setViewportSize({ width, height: 900 });
      await browser.clearCookies();
      await page.goto(`${portal.baseUrl}/page/home`);
      expect(await audit(page)).toEqual([]);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);

      const { cookie } = portal.deps.sessions.create({ contextId: 'employees', uniqueId: 'alice' }, ['admin']);
      await browser.addCookies([{ name: PORTAL_SESSION_COOKIE, value: cookie, url: portal.url }]);
      await page.goto(`${portal.baseUrl}/page/home?a.s=maximized`);
      expect(await audit(page)).toEqual([]);
      await page.goto(`${portal.baseUrl}/page/home?b.s=minimized`);
      expect(await audit(page)).toEqual([]);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
      await page.close();
    });
  }

  test('the window controls and an action work from the keyboard', async () => {
    const page = await browser.newPage();
    await browser.clearCookies();
    await page.goto(`${portal.baseUrl}/page/home`);
    await page.getByRole('link', { name: 'Maximize Counter' }).first().focus();
    await Promise.all([page.waitForURL((url) => url.search.includes('a.s=maximized')), page.keyboard.press('Enter')]);
    expect(await page.locator('section.portlet').count()).toBe(1);
    await page.locator('#svc_a_step').fill('3');
    await Promise.all([page.waitForURL((url) => url.search.includes('a.p.last=3')), page.keyboard.press('Enter')]);
    expect(await page.locator('#svc_a_count').getAttribute('data-count')).toBe('3');
    await page.close();
  });
});

/**
 * Core, gateway and portal as three separate processes (`svc server`, `svc gateway`, `svc portal`
 * with the four portlets), bob in Chromium: the core stopped mid-session turns each window into
 * "The service is unavailable; try again" while the page itself still renders; the core started
 * again (same port, same data) serves him again without a new portal login.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { TEST_CREDENTIALS, seededConfigDocument } from '../helpers/core-server';
import { CHROMIUM_PATH, chromiumRequirement, describeWithService } from '../helpers/services';
import { startSvc, stopSvc, type Running } from '../helpers/svc-process';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** The built descriptor of the four portlets, as `svc portal` (dist) loads them. */
const DESCRIPTOR = resolve(__dirname, '../../dist/portlet-adapter/src/portlets/portlet.json');
const listening = (message: string) => (entry: Record<string, unknown>) => (entry.msg === message ? String(entry.url) : undefined);
const SECRETS = { GW_SECRET: TEST_CREDENTIALS.clients['portal-gateway'], PORTAL_SECRET: TEST_CREDENTIALS.portals['demo-portal'] };

describeWithService(chromiumRequirement(), 'svc server, svc gateway and svc portal as separate processes', () => {
  let dir: string;
  let core: Running & { ready: string };
  let gateway: Running & { ready: string };
  let portal: Running & { ready: string };
  let browser: Browser;

  const startCore = (port: string) => startSvc(['server', '--config', join(dir, 'core.json')], { SVC_PORT: port }, listening('core server listening'));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-three-'));
    const coreDoc = await seededConfigDocument(dir);
    writeFileSync(join(dir, 'core.json'), JSON.stringify(coreDoc));
    core = await startCore('0');
    writeFileSync(
      join(dir, 'gateway.json'),
      JSON.stringify({ gateway: { host: '127.0.0.1', port: 0, cores: [`${core.ready}/svc`], clientId: 'portal-gateway', secret: '${GW_SECRET}', portals: [{ id: 'demo-portal', secret: '${PORTAL_SECRET}' }] } }),
    );
    gateway = await startSvc(['gateway', '--config', join(dir, 'gateway.json')], SECRETS, listening('gateway listening'));
    writeFileSync(
      join(dir, 'portal.json'),
      JSON.stringify({
        portal: {
          host: '127.0.0.1', port: 0, gateways: [`${gateway.ready}/gw`], portalId: 'demo-portal', secret: '${PORTAL_SECRET}', dataDir: dir, descriptor: DESCRIPTOR,
          pages: [{ id: 'home', title: 'Home', windows: [{ id: 'me', portlet: 'self-service', visitors: 'never' }, { id: 'forgot', portlet: 'forgotten-password', visitors: 'only' }] }],
        },
      }),
    );
    portal = await startSvc(['portal', '--config', join(dir, 'portal.json')], SECRETS, listening('portal listening'));
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const p of [portal, gateway, core]) if (p) expect(await stopSvc(p)).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Until the gateway's /ready says a core answers (its health probe runs every 2 s). */
  async function gatewayReady(): Promise<void> {
    while ((await fetch(`${gateway.ready}/ready`)).status !== 200) await new Promise((r) => setTimeout(r, 200));
  }

  test('a stopped core: the page renders and each window says the service is unavailable; a restarted core serves bob again without a new login', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${portal.ready}/portal/login`);
    await page.getByLabel('User name').fill('bob');
    await page.getByLabel('Password', { exact: true }).fill(TEST_CREDENTIALS.users.bob);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Log in' }).click()]);
    const me = page.locator('section.portlet', { has: page.getByRole('heading', { level: 2, name: 'Self-Service' }) });
    expect(await me.textContent()).toContain('bob@example.com');

    const port = new URL(core.ready).port;
    expect(await stopSvc(core)).toBe(0);
    const down = await page.reload();
    expect(down?.status()).toBe(200);
    expect(await page.locator('h1').textContent()).toBe('Home');
    expect(await page.locator('header').textContent()).toContain('employees/bob');
    expect(await me.locator('[role=alert]').textContent()).toContain('The service is unavailable; try again');

    core = await startCore(port);
    await gatewayReady();
    const up = await page.reload();
    expect(up?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/portal/page/home');
    expect(await me.textContent()).toContain('bob@example.com');
    expect(errors).toEqual([]);
    await context.close();
  });
});

/**
 * The four portlets' markup in a real browser with axe-core: every view and every error state a
 * person meets, placed in a page the way the portal places a window (a `section` headed by an
 * `h2`), with no accessibility violations; fragments only (no html, head, body or script); ids
 * namespaced, so two windows of one portlet on a page never share one.
 */
import AxeBuilder from '@axe-core/playwright';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { PortletMode } from '../../portlet-adapter/src/api';
import { CHROMIUM_PATH, chromiumRequirement, describeWithService } from '../helpers/services';
import type { ContainerWindow } from './harness';
import { startSvc, windowOf, type Svc } from './setup';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function page(windows: Array<{ title: string; markup: string; id: string }>): string {
  const sections = windows.map((w) => `<section aria-labelledby="${w.id}title"><h2 id="${w.id}title">${w.title}</h2>${w.markup}</section>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Portal</title></head><body><header><p>svc portal</p></header><main>${sections}</main></body></html>`;
}

function ids(markup: string): string[] {
  return [...markup.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
}

describeWithService(chromiumRequirement(), 'the portlets\' markup in a real browser', () => {
  let svc: Svc;
  let profile: string;
  let browser: BrowserContext;
  const views: Array<[string, string]> = [];

  /** Renders `window` after `prepare`, and keeps the markup for the checks below. */
  async function keep(name: string, window: ContainerWindow, prepare: (w: ContainerWindow) => Promise<unknown> | void = () => undefined): Promise<void> {
    await prepare(window);
    views.push([name, await window.render()]);
  }

  beforeAll(async () => {
    svc = await startSvc();
    profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
    const bob = () => windowOf(svc, 'self-service', 'employees/bob', ['user']);
    const alice = () => windowOf(svc, 'user-admin', 'employees/alice', ['admin']);
    await keep('registration', windowOf(svc, 'registration', null));
    await keep('registration with errors', windowOf(svc, 'registration', null), (w) => w.action({ op: 'register', uniqueId: 'x', mail: 'not-mail', password: 'password', passwordRepeat: 'other' }));
    await keep('registration refused by the core', windowOf(svc, 'registration', null), (w) => w.action({ op: 'register', uniqueId: 'y', mail: 'not-mail', password: 'Long-enough-1', passwordRepeat: 'Long-enough-1' }));
    await keep('forgotten password', windowOf(svc, 'forgotten-password', null));
    await keep('forgotten password questions', windowOf(svc, 'forgotten-password', null), (w) => w.action({ op: 'start', name: 'bob' }));
    await keep('self-service', bob());
    await keep('self-service edit', bob(), (w) => void (w.renderParameters = { view: ['edit'] }));
    await keep('self-service password', bob(), (w) => void (w.renderParameters = { view: ['password'] }));
    await keep('self-service wrong password', bob(), (w) => w.action({ op: 'password', oldPassword: 'wrong', newPassword: 'Whatever-1234', newPasswordRepeat: 'Whatever-1234' }));
    await keep('self-service preferences', bob(), (w) => void (w.mode = PortletMode.EDIT));
    await keep('self-service help', bob(), (w) => void (w.mode = PortletMode.HELP));
    await keep('user admin', alice());
    await keep('user admin bad filter', alice(), (w) => w.action({ op: 'search', filter: 'password pr' }));
    await keep('user admin subject', alice(), (w) => void (w.renderParameters = { view: ['show'], subject: ['bob'] }));
    await keep('user admin create', alice(), (w) => void (w.renderParameters = { view: ['create'] }));
    await keep('user admin edit', alice(), (w) => void (w.renderParameters = { view: ['edit'], subject: ['bob'] }));
    await keep('user admin delete', alice(), (w) => void (w.renderParameters = { view: ['delete'], subject: ['bob'] }));
    await keep('user admin preferences', alice(), (w) => void (w.mode = PortletMode.EDIT));
    await keep('user admin bad preferences', alice(), async (w) => {
      w.mode = PortletMode.EDIT;
      await w.action({ op: 'preferences', pageSize: '500', columns: ['mail'], context: '' });
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  test('every view is a fragment: no html, head, body or script; every id namespaced and unique', () => {
    for (const [name, markup] of views) {
      expect([name, /<(html|head|body|script)\b/i.test(markup)]).toEqual([name, false]);
      const found = ids(markup);
      expect([name, found.filter((id) => !id.startsWith('svc_w1_'))]).toEqual([name, []]);
      expect([name, new Set(found).size]).toEqual([name, found.length]);
    }
  });

  test('two windows of one portlet on a page share no id', async () => {
    const one = await windowOf(svc, 'user-admin', 'employees/alice', ['admin'], 'left').render();
    const two = await windowOf(svc, 'user-admin', 'employees/alice', ['admin'], 'right').render();
    const all = [...ids(one), ...ids(two)];
    expect(all.length).toBeGreaterThan(2);
    expect(new Set(all).size).toBe(all.length);
  });

  test('axe-core reports no violation in any view', async () => {
    const tab = await browser.newPage();
    for (const [name, markup] of views) {
      await tab.setContent(page([{ title: name, markup, id: 'svc_w1_' }]));
      const result = await new AxeBuilder({ page: tab }).analyze();
      expect([name, result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`)]).toEqual([name, []]);
    }
    await tab.close();
  });
});

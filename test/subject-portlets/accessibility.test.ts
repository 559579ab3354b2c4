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
import { coreLogin, startSvc, windowOf, type Svc } from './setup';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function page(windows: Array<{ title: string; markup: string; id: string }>): string {
  const sections = windows.map((w) => `<section aria-labelledby="${w.id}title"><h2 id="${w.id}title">${w.title}</h2>${w.markup}</section>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Portal</title></head><body><header><h1>svc portal</h1></header><main>${sections}</main></body></html>`;
}

function ids(markup: string): string[] {
  return [...markup.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
}

type Prepare = (w: ContainerWindow, svc: Svc) => Promise<unknown> | void;
type Case = [name: string, open: (svc: Svc) => ContainerWindow, prepare: Prepare];

const bob = (svc: Svc) => windowOf(svc, 'self-service', 'employees/bob', ['user']);
const alice = (svc: Svc) => windowOf(svc, 'user-admin', 'employees/alice', ['admin']);
const visitorOf = (portlet: string) => (svc: Svc) => windowOf(svc, portlet, null);
const params = (p: Record<string, string[]>): Prepare => (w) => void (w.renderParameters = p);
const mode = (m: PortletMode): Prepare => (w) => void (w.mode = m);
const nothing: Prepare = () => undefined;

/** Every view and error state a person meets. */
const CASES: Case[] = [
  ['registration', visitorOf('registration'), nothing],
  ['registration with errors', visitorOf('registration'), (w) => w.action({ op: 'register', uniqueId: 'x', mail: 'not-mail', password: 'password', passwordRepeat: 'other' })],
  ['registration refused by the core', visitorOf('registration'), (w) => w.action({ op: 'register', uniqueId: 'y', mail: 'not-mail', password: 'Long-enough-1', passwordRepeat: 'Long-enough-1' })],
  ['forgotten password', visitorOf('forgotten-password'), nothing],
  ['forgotten password questions', visitorOf('forgotten-password'), (w) => w.action({ op: 'start', name: 'bob' })],
  ['self-service', bob, nothing],
  ['self-service edit', bob, params({ view: ['edit'] })],
  ['self-service password', bob, params({ view: ['password'] })],
  ['self-service wrong password', bob, (w) => w.action({ op: 'password', oldPassword: 'wrong', newPassword: 'Whatever-1234', newPasswordRepeat: 'Whatever-1234' })],
  ['self-service preferences', bob, mode(PortletMode.EDIT)],
  ['self-service two-step sign-in start', bob, params({ view: ['otp-start'] })],
  ['self-service two-step sign-in wrong password', bob, (w) => w.action({ op: 'otpEnroll', password: 'wrong' })],
  ['self-service help', bob, mode(PortletMode.HELP)],
  ['user admin', alice, nothing],
  ['user admin bad filter', alice, (w) => w.action({ op: 'search', filter: 'password pr' })],
  ['user admin subject', alice, params({ view: ['show'], subject: ['bob'] })],
  ['user admin create', alice, params({ view: ['create'] })],
  ['user admin edit', alice, params({ view: ['edit'], subject: ['bob'] })],
  ['user admin delete', alice, params({ view: ['delete'], subject: ['bob'] })],
  ['user admin remove second factor', alice, params({ view: ['otp'], subject: ['bob'] })],
  ['user admin preferences', alice, mode(PortletMode.EDIT)],
  [
    'user admin sorted, bob locked',
    alice,
    async (w, svc) => {
      for (let i = 0; i < 5; i++) await coreLogin(svc, 'bob', 'wrong-password');
      w.renderParameters = { sort: ['mail'], order: ['desc'] };
    },
  ],
  ['user admin subject locked, with events', alice, params({ view: ['show'], subject: ['bob'] })],
  ['user admin events', alice, params({ view: ['events'], subject: ['bob'], events: ['1'] })],
  ['user admin bulk confirmation', alice, params({ view: ['bulk'], bulk: ['disable'], selected: ['bob', 'alice'] })],
  ['user admin bulk refused', alice, async (w) => w.action({ op: 'choose', view: 'list', bulk: 'delete' })],
  [
    'user admin bad preferences',
    alice,
    async (w) => {
      w.mode = PortletMode.EDIT;
      await w.action({ op: 'preferences', pageSize: '500', columns: ['mail'], context: '' });
    },
  ],
];

describeWithService(chromiumRequirement(), 'the portlets\' markup in a real browser', () => {
  let svc: Svc;
  let profile: string;
  let browser: BrowserContext;

  beforeAll(async () => {
    svc = await startSvc();
    profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  test.each(CASES)('%s: a fragment with namespaced, unique ids and no axe-core violation', async (name, open, prepare) => {
    const window = open(svc);
    await prepare(window, svc);
    const markup = await window.render();
    expect(/<(html|head|body|script)\b/i.test(markup)).toBe(false);
    const found = ids(markup);
    expect(found.filter((id) => !id.startsWith('svc_w1_'))).toEqual([]);
    expect(new Set(found).size).toBe(found.length);
    const tab = await browser.newPage();
    await tab.setContent(page([{ title: name, markup, id: 'svc_w1_' }]));
    const result = await new AxeBuilder({ page: tab }).analyze();
    await tab.close();
    expect(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`)).toEqual([]);
  });

  test('two windows of one portlet on a page share no id', async () => {
    const one = await windowOf(svc, 'user-admin', 'employees/alice', ['admin'], 'left').render();
    const two = await windowOf(svc, 'user-admin', 'employees/alice', ['admin'], 'right').render();
    const all = [...ids(one), ...ids(two)];
    expect(all.length).toBeGreaterThan(2);
    expect(new Set(all).size).toBe(all.length);
  });
});

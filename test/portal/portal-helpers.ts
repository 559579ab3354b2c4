/**
 * A real portal (`startPortal`) on port 0 with the test portlets of test/portlets/fixtures, its
 * descriptor and configuration written to a temporary directory, and a small browser: a cookie jar,
 * `Origin` on posts, redirects not followed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { parsePrincipalName } from '../../common/src/principal-name';
import { buildPortalConfig, startPortal, type RunningPortal } from '../../portlet-adapter/src/portal';
import { PORTAL_SESSION_COOKIE } from '../../portlet-adapter/src/portal/session-store';
import { PORTLETS_DESCRIPTOR } from '../../portlet-adapter/src/portlets';
import { demoPortalDocument } from '../../server/src/demo/demo-portal';
import type { RunningGateway } from '../../gateway/src/index';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { startTestGateway } from '../gateway/gateway-helpers';
import { COUNTER, fixture } from '../portlets/harness';

export const PORTAL_SECRET = 'ZGVtby1wb3J0YWwtdGVzdC1zZWNyZXQtZm9yLXRlc3RzLW9ubHk';

export const PORTLETS = [
  COUNTER,
  { name: 'thrower', module: fixture('thrower.ts', 'ThrowerPortlet'), title: 'Thrower' },
  { name: 'hanger', module: fixture('hanger.ts', 'HangingPortlet'), title: 'Hanger' },
  { name: 'broken', module: fixture('failing-init.ts', 'FailingInitPortlet'), title: 'Broken' },
];

export interface TestPortal extends RunningPortal {
  dir: string;
  stop(): Promise<void>;
}

export async function startTestPortal(portal: Record<string, unknown>, portlets: object[] = PORTLETS, options: { dir?: string; defaultMetrics?: boolean; logger?: pino.Logger } = {}): Promise<TestPortal> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'svc-portal-'));
  writeFileSync(join(dir, 'portlet.json'), JSON.stringify({ application: 'test', portlets }));
  const config = buildPortalConfig(
    {
      portal: {
        host: '127.0.0.1',
        port: 0,
        // Nothing listens on port 9: these suites need no gateway.
        gateways: ['http://127.0.0.1:9/gw'],
        portalId: 'demo-portal',
        secret: PORTAL_SECRET,
        dataDir: dir,
        descriptor: 'portlet.json',
        ...portal,
      },
    },
    { env: {}, baseDir: dir },
  );
  const running = await startPortal(config, { logger: options.logger ?? pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }), defaultMetrics: options.defaultMetrics ?? false });
  return {
    ...running,
    dir,
    async stop() {
      await running.close();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The demo portal (its four subject-management portlets, the demo's pages) on port 0 in front of the
 * gateways at `gateway`, in a new temporary data directory that `stop()` removes. Renders may take
 * a minute: a suite's first login starts the core's hashing workers, and the render limit is not
 * what these suites test.
 */
export async function startDemoPortal(gateway: string | string[], dirPrefix = 'svc-demo-portal-'): Promise<TestPortal> {
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  const doc = demoPortalDocument({ credentials: TEST_CREDENTIALS, host: '127.0.0.1', gateway, dataDir: dir, descriptor: PORTLETS_DESCRIPTOR });
  const config = buildPortalConfig({ portal: { ...doc.portal, port: 0, renderTimeoutMs: 60_000 } }, { env: {}, baseDir: dir });
  const running = await startPortal(config, { logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }), defaultMetrics: false });
  return {
    ...running,
    dir,
    async stop() {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A core, a test gateway in front of it and the demo portal in front of that, all in this process. */
export interface DemoStack {
  core: TestServer;
  gateway: RunningGateway;
  portal: TestPortal;
  /** Stops the three, the portal first. */
  stop(): Promise<void>;
}

/** Starts a DemoStack (`core`: startTestServer's options, e.g. an injected clock); what started is stopped if a later part fails. */
export async function startDemoStack(core: Parameters<typeof startTestServer>[0], dirPrefix?: string): Promise<DemoStack> {
  const server = await startTestServer(core);
  let gateway: RunningGateway | undefined;
  try {
    gateway = await startTestGateway([server.baseUrl]);
    const portal = await startDemoPortal(gateway.baseUrl, dirPrefix);
    const running = gateway;
    return {
      core: server,
      gateway: running,
      portal,
      async stop() {
        await portal.stop();
        await running.close();
        await server.stop();
      },
    };
  } catch (error) {
    await gateway?.close();
    await server.stop();
    throw error;
  }
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

/** A browser of the portal: keeps its cookies, sends `Origin` with posts (the portal's unless told). */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(private readonly portal: RunningPortal) {}

  /** Logged in as `name` (`contextId/uniqueId`) with `roles`, through the portal's own session store. */
  static loggedIn(portal: RunningPortal, name: string, roles: string[] = []): Browser {
    const browser = new Browser(portal);
    const { cookie } = portal.deps.sessions.create(parsePrincipalName(name)!, roles);
    browser.cookies.set(PORTAL_SESSION_COOKIE, cookie);
    return browser;
  }

  async get(path: string): Promise<Answer> {
    return this.send('GET', path);
  }

  async post(path: string, form: Record<string, string> | string = {}, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send('POST', path, typeof form === 'string' ? form : new URLSearchParams(form).toString(), { origin: this.portal.url, 'content-type': 'application/x-www-form-urlencoded', ...headers });
  }

  async send(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Answer> {
    const url = path.startsWith('http') ? path : `${this.portal.url}${path}`;
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { method, body, redirect: 'manual', headers: { ...(cookie ? { cookie } : {}), ...headers } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, headers: response.headers, text: await response.text(), location: response.headers.get('location') };
  }
}

/** The HTML-unescaped value of the first `attribute` on the element with `id`. */
export function attributeOf(html: string, id: string, attribute: string): string | undefined {
  const element = new RegExp(`<[a-z0-9]+ [^>]*id="${id}"[^>]*>`).exec(html)?.[0];
  const value = element && new RegExp(`${attribute}="([^"]*)"`).exec(element)?.[1];
  return value?.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
}

/** Every `id` attribute of a page. */
export function idsOf(html: string): string[] {
  return [...html.matchAll(/\sid="([^"]*)"/g)].map((m) => m[1]);
}

/** Logs in on the portal's own form, as a person does: the fields are "User name" and "Password". */
export async function portalLogin(browser: Browser, user: string, password: string): Promise<void> {
  const form = await browser.get('/portal/login');
  expect(form.text).toMatch(/<label[^>]*for="portal-user">User name<\/label>/);
  expect(form.text).toMatch(/<label[^>]*for="portal-password">Password<\/label>/);
  expect(await browser.post('/portal/login', { _csrf: tokenOf(form.text), user, password })).toMatchObject({ status: 303 });
}

/** The session's CSRF token, as the page's logout form carries it. */
export function tokenOf(html: string): string {
  const token = /name="_csrf" value="([^"]*)"/.exec(html)?.[1];
  if (token === undefined) throw new Error('no _csrf field on the page');
  return token;
}

/** Markup's `&amp;` and numeric references as text (the portal escapes URLs in attributes). */
export const unescapeHtml = (text: string): string => text.replace(/&amp;/g, '&').replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));

/** The action URL of the form whose hidden `op` is `op`. */
export function actionOf(page: Answer, op: string): string {
  const form = new RegExp(`<form method="post" action="([^"]*)"[^>]*><input type="hidden" name="op" value="${op}">`).exec(page.text);
  if (!form) throw new Error(`no form for ${op} on the page`);
  return unescapeHtml(form[1]);
}

/** The href of the first link whose text starts with `text`, or undefined. */
export function linkTo(page: Answer, text: string): string | undefined {
  const a = new RegExp(`<a [^>]*href="([^"]*)"[^>]*>${text}`).exec(page.text);
  return a ? unescapeHtml(a[1]) : undefined;
}

/** The href of the link whose text starts with `text`; throws when there is none. */
export function hrefOf(page: Answer, text: string): string {
  const href = linkTo(page, text);
  if (href === undefined) throw new Error(`no link "${text}" on the page`);
  return href;
}

/** Posts an action and follows its 303 to the page it renders. */
export async function act(browser: Browser, action: string, form: Record<string, string>): Promise<Answer> {
  const answer = await browser.post(action, form);
  if (answer.status !== 303) throw new Error(`the action answered ${answer.status}, not 303`);
  return browser.get(answer.location!);
}

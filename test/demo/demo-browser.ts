/**
 * What the demo's browser tests share: `svc demo` as `npm start` runs it (a real child process on
 * free ports, a temporary SVC_DATA_DIR), the core's REST API as `svcadmin` to confirm each step, and
 * a Chromium tab per person that collects console errors, runs axe-core on every page it visits and
 * keeps screenshots at 375 px and 1280 px (test artifacts; `npm run screenshots` keeps a chosen few
 * under docs/screenshots for the README).
 */
import AxeBuilder from '@axe-core/playwright';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { send, type Sent } from '../helpers/http';
import { login } from '../helpers/login';
import { CHROMIUM_PATH } from '../helpers/services';
import { startDemo, stopSvc, type Running } from '../helpers/svc-process';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Where every run keeps its screenshots (ignored by git). */
export const ARTIFACTS = resolve(__dirname, '../../test-artifacts/demo-browser');
/** Set by `npm run screenshots`: the README's images are written there too. */
const README_SHOTS = process.env.SVC_README_SCREENSHOTS && resolve(process.env.SVC_README_SCREENSHOTS);
export const WIDTHS = [375, 1280] as const;

export interface DemoCredentialsFile {
  users: { svcadmin: string; alice: string; bob: string };
  answers: { bob: [string, string] };
}

export class Demo {
  private constructor(
    readonly process: Running & { core: string; portal: string; mailbox: string },
    readonly credentials: DemoCredentialsFile,
    readonly browser: Browser,
    private readonly dataDir: string,
    private adminCookie = '',
  ) {}

  static async start(): Promise<Demo> {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-demo-browser-'));
    mkdirSync(ARTIFACTS, { recursive: true });
    if (README_SHOTS) mkdirSync(README_SHOTS, { recursive: true });
    const running = await startDemo(dataDir);
    const credentials = JSON.parse(readFileSync(running.credentials, 'utf8')) as DemoCredentialsFile;
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
    return new Demo(running, credentials, browser, dataDir);
  }

  async stop(): Promise<number | null> {
    await this.browser.close();
    const code = await stopSvc(this.process);
    rmSync(this.dataDir, { recursive: true, force: true });
    return code;
  }

  /** `{portal}` */
  get portal(): string {
    return this.process.portal;
  }

  /** `{base}` */
  get core(): string {
    return this.process.core;
  }

  /** The development mailbox's page (SPEC 11), `http://127.0.0.1:PORT/`. */
  get mailbox(): string {
    return this.process.mailbox;
  }

  /** The newest caught message to `to` whose subject is `subject`, waiting for it (the queue sends within a second or two). */
  async mail(to: string, subject: string): Promise<{ to: string; subject: string; text: string; html: string; sentAt: string }> {
    for (let tries = 0; ; tries++) {
      const sent = await send(`${this.mailbox}messages`);
      const messages = sent.json as unknown as Array<{ to: string; subject: string; text: string; html: string; sentAt: string }>;
      const found = messages.find((m) => m.to.includes(to) && m.subject === subject);
      if (found) return found;
      // The queue sends within a second or two: a message missing after 20 s is not coming.
      if (tries === 100) throw new Error(`no "${subject}" to ${to} in the mailbox: ${messages.map((m) => `${m.to}: ${m.subject}`).join('; ')}`);
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 200));
    }
  }

  /** POST {base}/login as a person would through svc-web: the status says whether the password is right. */
  async coreLogin(user: string, password: string): Promise<Sent> {
    return login(this.core, { clientid: 'svc-web', user, password }, { headers: { accept: 'application/json' } });
  }

  /** GET/PUT/… {base}/resources/… as svcadmin (logged in once). */
  async asAdmin(path: string, options: { method?: string; json?: unknown } = {}): Promise<Sent> {
    if (!this.adminCookie) {
      const sent = await this.coreLogin('svcadmin', this.credentials.users.svcadmin);
      if (sent.status !== 200 || !sent.cookie) throw new Error(`svcadmin could not log in: ${sent.status} ${sent.text}`);
      this.adminCookie = sent.cookie;
    }
    return send(`${this.core}/resources${path}`, { ...options, cookie: this.adminCookie, headers: { accept: 'application/json' } });
  }

  /** A subject's attributes as the core holds them (null when it does not exist). */
  async subject(context: string, uniqueId: string): Promise<Record<string, unknown> | null> {
    const sent = await this.asAdmin(`/contexts/${context}/subjects/${encodeURIComponent(uniqueId)}`);
    if (sent.status === 404) return null;
    if (sent.status !== 200) throw new Error(`reading ${uniqueId}: ${sent.status} ${sent.text}`);
    return (sent.json!.subject as { attributes: Record<string, unknown> }).attributes;
  }

  /** A new person: a browser context of its own (cookies apart), JavaScript on unless told. */
  async person(name: string, options: { javaScript?: boolean } = {}): Promise<Person> {
    const context = await this.browser.newContext({ javaScriptEnabled: options.javaScript ?? true, viewport: { width: 1280, height: 900 } });
    // A missing element fails its step with the locator's name, well before the test's own limit.
    context.setDefaultTimeout(10_000);
    return new Person(name, context, await context.newPage());
  }
}

export class Person {
  readonly consoleErrors: string[] = [];
  readonly violations: string[] = [];

  constructor(
    readonly name: string,
    readonly context: BrowserContext,
    readonly page: Page,
  ) {
    page.on('console', (message) => {
      if (message.type() === 'error') this.consoleErrors.push(`${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => this.consoleErrors.push(`${page.url()}: ${error.message}`));
  }

  /**
   * The page as it is now, checked as a person sees it: axe-core at both widths (no violation),
   * no sideways scrolling, and a screenshot at each width (`shot`: its file name; `readme`: also
   * kept for the README at that width).
   */
  async look(shot: string, options: { readme?: (typeof WIDTHS)[number] } = {}): Promise<void> {
    for (const width of WIDTHS) {
      await this.page.setViewportSize({ width, height: 900 });
      const result = await new AxeBuilder({ page: this.page }).analyze();
      for (const v of result.violations) this.violations.push(`${shot} at ${width} px: ${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`);
      const scrollWidth = await this.page.evaluate<number>('document.documentElement.scrollWidth');
      if (scrollWidth > width) this.violations.push(`${shot} at ${width} px: scrolls sideways (${scrollWidth} px)`);
      const file = `${this.name}-${shot}-${width}.png`;
      await this.page.screenshot({ path: join(ARTIFACTS, file), fullPage: true });
      if (README_SHOTS && options.readme === width) await this.page.screenshot({ path: join(README_SHOTS, `${shot}.png`), fullPage: width > 400 });
    }
    await this.page.setViewportSize({ width: 1280, height: 900 });
  }

  /** The part of the page from the top of `from` to the bottom of `to`, full width, kept for the README (only under `npm run screenshots`). */
  async keepForReadme(from: Locator, to: Locator, shot: string): Promise<void> {
    if (!README_SHOTS) return;
    await this.page.evaluate('window.scrollTo(0, 0)');
    const top = (await from.boundingBox())!;
    const bottom = (await to.boundingBox())!;
    const width = this.page.viewportSize()!.width;
    const clip = { x: 0, y: Math.max(0, top.y - 12), width, height: bottom.y + bottom.height - top.y + 24 };
    await this.page.screenshot({ path: join(README_SHOTS, `${shot}.png`), fullPage: true, clip });
  }

  /** The window (`section`) headed by a portlet's title. */
  window(title: string) {
    return this.page.locator('section.portlet', { has: this.page.getByRole('heading', { level: 2, name: title, exact: true }) });
  }

  /** The form control labelled `label` inside `scope` (a form's own aria-label may read the same). */
  control(scope: Locator, label: string): Locator {
    const name = new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\(required\\))?$`);
    return scope.locator('input, select, textarea').and(scope.getByLabel(name));
  }

  /** Clicks and waits for the navigation it causes (a form post answers 303, then the page). */
  async submit(click: () => Promise<void>): Promise<void> {
    await Promise.all([this.page.waitForNavigation(), click()]);
  }

  async logIn(portal: string, user: string, password: string): Promise<void> {
    await this.page.goto(`${portal}/login`);
    await this.page.getByLabel('User name').fill(user);
    await this.page.getByLabel('Password', { exact: true }).fill(password);
    await this.submit(() => this.page.getByRole('button', { name: 'Log in' }).click());
    if (new URL(this.page.url()).pathname.endsWith('/login')) throw new Error(`${user} could not log in to the portal: ${await this.page.locator('main').textContent()}`);
  }

  async close(): Promise<void> {
    await this.context.close();
  }
}

/**
 * Closes everyone in `people` (emptying it) and expects that every page each of them saw had no
 * accessibility violation and no console error: a browser suite's afterEach.
 */
export async function closeAndCheck(people: Person[]): Promise<void> {
  for (const one of people.splice(0)) {
    await one.close();
    expect({ who: one.name, violations: one.violations, consoleErrors: one.consoleErrors }).toEqual({ who: one.name, violations: [], consoleErrors: [] });
  }
}

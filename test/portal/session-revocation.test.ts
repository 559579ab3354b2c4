/**
 * Portal sessions end with their credentials (SPEC 4, 9 and 10.2; issue 24 items 6 and 7), with the
 * real core, gateway and portal (the demo's pages and portlets) in this process on port 0: bob,
 * logged in to the portal in two browsers, changes his password in the Self-Service window of one;
 * the other's next page is a visitor's, with the portal login offered, while the first stays signed
 * in. The same on two cores sharing PostgreSQL and Redis, behind a gateway on Redis, within one
 * second. One principal holds at most `maxSessionsPerPrincipal` portal sessions (default 10): the
 * 11th login ends the oldest, and its core session with it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import pino from 'pino';
import type { RunningGateway } from '../../gateway/src/index';
import { buildPortalConfig, startPortal, type RunningPortal } from '../../portlet-adapter/src/portal';
import { PORTLETS_DESCRIPTOR } from '../../portlet-adapter/src/portlets';
import { demoPortalDocument } from '../../server/src/demo/demo-portal';
import { RedisSessionStore } from '../../server/src/sessions/redis-session-store';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { onPostgres, suiteSchemas } from '../helpers/postgres';
import { deleteKeys } from '../helpers/redis-keys';
import { describeWithService, postgresRequirement, REDIS_URL, redisRequirement } from '../helpers/services';
import { startTestGateway } from '../gateway/gateway-helpers';
import { Browser, portalLogin, tokenOf } from './portal-helpers';

const { users } = TEST_CREDENTIALS;
const SIGNED_IN_AS_BOB = 'Signed in as <strong>employees/bob</strong>';

interface Stack {
  cores: TestServer[];
  gateway: RunningGateway;
  portal: RunningPortal;
  stop(): Promise<void>;
}

async function startStack(cores: TestServer[], gatewayOverrides: Record<string, unknown> = {}): Promise<Stack> {
  const gateway = await startTestGateway(cores.map((core) => core.baseUrl), gatewayOverrides);
  const dir = mkdtempSync(join(tmpdir(), 'svc-revocation-'));
  const doc = demoPortalDocument({ credentials: TEST_CREDENTIALS, host: '127.0.0.1', gateway: gateway.baseUrl, dataDir: dir, descriptor: PORTLETS_DESCRIPTOR });
  // Hashing workers start with the first login: the 5 s render limit is not under test.
  const config = buildPortalConfig({ portal: { ...doc.portal, port: 0, renderTimeoutMs: 60_000 } }, { env: {}, baseDir: dir });
  const portal = await startPortal(config, { logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }), defaultMetrics: false });
  return {
    cores,
    gateway,
    portal,
    async stop() {
      await portal.close();
      await gateway.close();
      await Promise.all(cores.map((core) => core.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Logs bob in to the portal in a new browser. */
async function bobIn(stack: Stack, password: string): Promise<Browser> {
  const browser = new Browser(stack.portal);
  await portalLogin(browser, 'bob', password);
  expect((await browser.get('/portal/page/home')).text).toContain(SIGNED_IN_AS_BOB);
  return browser;
}

/** Changes bob's password in the Self-Service window, as bob does in a browser. */
async function changePassword(browser: Browser, from: string, to: string): Promise<void> {
  const page = await browser.get('/portal/page/home?me.p.view=password');
  const form = /<form[^>]*action="([^"]*)"[^>]*>(?:(?!<\/form>)[\s\S])*name="oldPassword"/.exec(page.text);
  expect(form).not.toBeNull();
  const action = form![1].replace(/&amp;/g, '&');
  const answer = await browser.post(action, { op: 'password', oldPassword: from, newPassword: to, newPasswordRepeat: to });
  expect(answer.status).toBe(303);
  expect((await browser.get(answer.location!)).text).toContain('Your password was changed');
}

/** A visitor's page: no user in the header, the portal login offered. */
function expectVisitorPage(text: string): void {
  expect(text).not.toContain('Signed in as');
  expect(text).toContain('href="/portal/login');
}

async function passwordChangeEndsTheOtherPortalSession(stack: Stack, boundMs: number): Promise<void> {
  const changing = await bobIn(stack, users.bob);
  const other = await bobIn(stack, users.bob);
  await changePassword(changing, users.bob, 'Portal-changed-1357');
  const deadline = Date.now() + boundMs;
  let page = await other.get('/portal/page/home');
  while (page.text.includes('Signed in as') && Date.now() < deadline) page = await other.get('/portal/page/home');
  expect(page.status).toBe(200);
  expectVisitorPage(page.text);
  expect(other.cookies.has('SVCPORTALSESSION')).toBe(false);
  // And it stays so; the browser that changed the password is still bob's.
  expectVisitorPage((await other.get('/portal/page/home')).text);
  expect((await changing.get('/portal/page/home')).text).toContain(SIGNED_IN_AS_BOB);
  // Put back for the next test.
  await changePassword(changing, 'Portal-changed-1357', users.bob);
}

describe('portal sessions end with their credentials (one core)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([await startTestServer()]);
  }, 60_000);
  afterAll(() => stack.stop());

  test('bob changes his password in one browser: the other\'s next page is a visitor\'s', async () => {
    await passwordChangeEndsTheOtherPortalSession(stack, 0);
  });

  test('an admin disables bob outside the portal: each of bob\'s portal sessions is a visitor\'s at its next request, the pass-through\'s too', async () => {
    const page = await bobIn(stack, users.bob);
    const script = await bobIn(stack, users.bob);
    const core = stack.cores[0];
    await core.core.subjects.update('employees', 'bob', { disabled: 'true' }, 'admin');
    const api = await script.send('GET', '/portal/api/session', undefined, { accept: 'application/json' });
    expect(api.status).toBe(401);
    expect(JSON.parse(api.text)).toMatchObject({ code: 'session_revoked' });
    for (const browser of [script, page]) expectVisitorPage((await browser.get('/portal/page/home')).text);
    await core.core.subjects.update('employees', 'bob', { disabled: 'false' }, 'admin');
  });

  test('the 11th portal login of one principal ends its oldest portal session and that session\'s core session (maxSessionsPerPrincipal 10)', async () => {
    expect(stack.portal.deps.config.maxSessionsPerPrincipal).toBe(10);
    const coreSessionsOfBob = async () => (await stack.cores[0].core.sessions.list(10_000)).filter((s) => s.principal?.uniqueId === 'bob').length;
    const before = await coreSessionsOfBob();
    const browsers: Browser[] = [];
    for (let n = 0; n < 11; n++) browsers.push(await bobIn(stack, users.bob));
    expectVisitorPage((await browsers[0].get('/portal/page/home')).text);
    for (const browser of [browsers[1], browsers[10]]) expect((await browser.get('/portal/page/home')).text).toContain(SIGNED_IN_AS_BOB);
    // One core session per live portal session: the ended one's went with it.
    expect(await coreSessionsOfBob()).toBeLessThanOrEqual(before + 10);
    // Others are not touched: alice logs in.
    const alice = new Browser(stack.portal);
    await portalLogin(alice, 'alice', users.alice);
    expect((await alice.get('/portal/page/home')).text).toContain('Signed in as <strong>employees/alice</strong>');
    for (const browser of browsers.slice(1)) await browser.post('/portal/logout', { _csrf: tokenOf((await browser.get('/portal/page/home')).text) });
  });
});

describeWithService(redisRequirement(), 'portal sessions end with their credentials across cores', () => {
  describeWithService(postgresRequirement(), 'two cores on PostgreSQL and Redis, the gateway on Redis', () => {
    const schemas = suiteSchemas('portalrevocation');
    const run = `${process.pid}:${randomBytes(6).toString('hex')}`;
    const corePrefix = `svc-test:portalrevocation:${run}:`;
    const gatewayPrefix = `svc-test:portalrevocation-gw:${run}:`;
    let stack: Stack;

    beforeAll(async () => {
      const { url } = await schemas.create();
      const a = await startTestServer({ configure: onPostgres(url), sessionStore: new RedisSessionStore({ url: REDIS_URL, prefix: corePrefix }) });
      const b = await startTestServer({ configure: onPostgres(url), sessionStore: new RedisSessionStore({ url: REDIS_URL, prefix: corePrefix }), seed: false });
      stack = await startStack([a, b], { redis: { url: REDIS_URL, prefix: gatewayPrefix } });
    }, 60_000);
    afterAll(async () => {
      await stack?.stop();
      const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      await deleteKeys(admin, corePrefix);
      await deleteKeys(admin, gatewayPrefix);
      await admin.quit();
    });

    test('bob changes his password in one browser: the other\'s next page is a visitor\'s within one second', async () => {
      await passwordChangeEndsTheOtherPortalSession(stack, 1000);
    });
  });
});

/**
 * svc's portal as it runs: a core, a gateway and `svc portal` as three real processes. A user logs
 * in to the portal with the svc password (the portal keeps none); a portlet reads that user's own
 * subject through the gateway; a visitor gets an ANON core session and nothing else.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_CREDENTIALS, seededConfigDocument } from '../helpers/core-server';
import { startSvc, stopSvc, type Running } from '../helpers/svc-process';
import { Browser, attributeOf, tokenOf } from './portal-helpers';
import type { RunningPortal } from '../../portlet-adapter/src/portal';

/** The `url` of the process's log line `message`. */
const listening = (message: string) => (entry: Record<string, unknown>) => (entry.msg === message ? String(entry.url) : undefined);

describe('core, gateway and svc portal as real processes', () => {
  let dir: string;
  const processes: Running[] = [];
  let portal: RunningPortal;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-e2e-'));
    // Seed alice and bob into the data directory, then serve it from a real `svc server`.
    const coreDoc = await seededConfigDocument(dir);
    writeFileSync(join(dir, 'core.json'), JSON.stringify(coreDoc));
    const core = await startSvc(['server', '--config', join(dir, 'core.json')], { SVC_PORT: '0' }, listening('core server listening'));
    processes.push(core);

    writeFileSync(
      join(dir, 'gateway.json'),
      JSON.stringify({
        gateway: { host: '127.0.0.1', port: 0, cores: [`${core.ready}/svc`], clientId: 'portal-gateway', secret: '${GW_SECRET}', portals: [{ id: 'demo-portal', secret: '${PORTAL_SECRET}' }] },
      }),
    );
    const gateway = await startSvc(['gateway', '--config', join(dir, 'gateway.json')], { GW_SECRET: TEST_CREDENTIALS.clients['portal-gateway'], PORTAL_SECRET: TEST_CREDENTIALS.portals['demo-portal'] }, listening('gateway listening'));
    processes.push(gateway);

    writeFileSync(join(dir, 'portlet.json'), JSON.stringify({ portlets: [{ name: 'whoami', module: join(__dirname, '../fixtures/portlets/whoami.js#WhoAmIPortlet'), title: 'Who am I', userAttributes: ['user.name.given', 'user.business-info.online.email'] }] }));
    writeFileSync(
      join(dir, 'portal.json'),
      JSON.stringify({
        portal: { host: '127.0.0.1', port: 0, gateways: [`${gateway.ready}/gw`], portalId: 'demo-portal', secret: '${PORTAL_SECRET}', dataDir: dir, descriptor: 'portlet.json', pages: [{ id: 'home', title: 'Home', windows: [{ id: 'me', portlet: 'whoami' }] }] },
      }),
    );
    const portalProcess = await startSvc(['portal', '--config', join(dir, 'portal.json')], { PORTAL_SECRET: TEST_CREDENTIALS.portals['demo-portal'] }, listening('portal listening'));
    processes.push(portalProcess);
    // The Browser needs only the URL of a running portal.
    portal = { url: portalProcess.ready } as RunningPortal;
  }, 60_000);

  afterAll(async () => {
    for (const p of processes.reverse()) expect(await stopSvc(p)).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  async function logIn(browser: Browser, user: string, password: string) {
    const form = await browser.get('/portal/login');
    expect(form.text).toContain('<label class="portlet-form-label" for="portal-user">User name</label>');
    expect(form.text).toContain('<label class="portlet-form-label" for="portal-password">Password</label>');
    return browser.post('/portal/login', { _csrf: tokenOf(form.text), user, password });
  }

  test('a svc user logs in with the svc password; the portlet reads that user\'s own subject through the gateway', async () => {
    const bob = new Browser(portal);
    const answer = await logIn(bob, 'bob', TEST_CREDENTIALS.users.bob);
    expect(answer).toMatchObject({ status: 303, location: '/portal/' });
    expect(answer.headers.getSetCookie().find((c) => c.startsWith('SVCPORTALSESSION='))).toMatch(/^SVCPORTALSESSION=[A-Za-z0-9_-]{43}; Path=\/portal; HttpOnly; SameSite=Lax$/);
    const page = await bob.get('/portal/page/home');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Signed in as <strong>employees/bob</strong>');
    const who = (name: string) => attributeOf(page.text, 'svc_me_who', `data-${name}`);
    expect(who('type')).toBe('USER');
    expect(who('principal')).toBe('employees/bob');
    expect(who('mail')).toBe('bob@example.com');
    expect(who('other')).toBe('access_denied');

    // An action writes bob's subject through the gateway; USER_INFO is read again after it.
    const saved = await bob.post(attributeOf(page.text, 'svc_me_form', 'action')!, { givenName: 'Robert' });
    expect(saved.status).toBe(303);
    const after = await bob.get(saved.location!);
    expect(attributeOf(after.text, 'svc_me_who', 'data-given')).toBe('Robert');
    expect(attributeOf(after.text, 'svc_me_who', 'data-saved')).toBe('yes');

    const logout = await bob.post('/portal/logout', { _csrf: tokenOf(after.text) });
    expect(logout).toMatchObject({ status: 303, location: '/portal/' });
    expect(attributeOf((await bob.get('/portal/page/home')).text, 'svc_me_who', 'data-type')).toBe('ANON');
  });

  test('a wrong password gets the same answer as an unknown user, and no session', async () => {
    const wrong = await logIn(new Browser(portal), 'bob', 'not-the-password');
    const unknown = await logIn(new Browser(portal), 'nobody-here', 'not-the-password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = (text: string) => /<p class="portlet-msg-error" role="alert">([^<]*)<\/p>/.exec(text)?.[1];
    expect(message(wrong.text)).toBe('The user name or password is not correct.');
    expect(message(unknown.text)).toBe(message(wrong.text));
    for (const answer of [wrong, unknown]) expect(answer.headers.getSetCookie().some((c) => c.startsWith('SVCPORTALSESSION='))).toBe(false);
  });

  test('a visitor gets an ANON core session through the gateway, and nothing else', async () => {
    const page = await new Browser(portal).get('/portal/page/home');
    expect(page.status).toBe(200);
    expect(attributeOf(page.text, 'svc_me_who', 'data-type')).toBe('ANON');
    expect(attributeOf(page.text, 'svc_me_who', 'data-principal')).toBe('');
    expect(attributeOf(page.text, 'svc_me_who', 'data-other')).toMatch(/^(access_denied|authentication_required)$/);
    expect(attributeOf(page.text, 'svc_me_who', 'data-given')).toBe('null');
    expect(page.text).not.toContain('svc_me_form');
  });

  test('/ready: the gateway answers', async () => {
    expect((await fetch(`${portal.url}/ready`)).status).toBe(200);
  });
});

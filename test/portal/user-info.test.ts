/**
 * USER_INFO is read again after any action that wrote that subject (SPEC 10.1), whoever wrote it:
 * alice edits bob in User Admin, and every portal session of bob's sees the new value at its next
 * render. A real core, a real gateway and a real portal on port 0; bob's window is the whoami
 * fixture (it declares `user.name.given`), alice's the shipped User Admin.
 */
import { join } from 'node:path';
import type { RunningGateway } from '../../gateway/src/index';
import { parsePrincipalName } from '../../common/src/principal-name';
import { PortalSessionStore } from '../../portlet-adapter/src/portal/session-store';
import { PORTLETS_DESCRIPTOR } from '../../portlet-adapter/src/portlets';
import { PORTAL_SECRET, startTestGateway } from '../gateway/gateway-helpers';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { ContainerWindow } from '../subject-portlets/harness';
import { Browser, attributeOf, startTestPortal, type TestPortal } from './portal-helpers';

const descriptorPath = (reference: string) => join(PORTLETS_DESCRIPTOR, '..', reference);

const PORTLETS = [
  { name: 'whoami', module: join(__dirname, '../fixtures/portlets/whoami.js#WhoAmIPortlet'), title: 'Who am I', userAttributes: ['user.name.given'] },
  {
    name: 'user-admin',
    module: descriptorPath('./user-admin/user-admin-portlet#UserAdminPortlet'),
    preferencesValidator: descriptorPath('./user-admin/preferences#UserAdminPreferencesValidator'),
    title: 'User Admin',
    supports: [{ mimeType: 'text/html', modes: ['view', 'edit', 'help'] }],
  },
];

const PAGES = [
  { id: 'home', title: 'Home', windows: [{ id: 'me', portlet: 'whoami' }] },
  { id: 'admin', title: 'Administration', roles: ['admin'], windows: [{ id: 'users', portlet: 'user-admin' }] },
];

describe('USER_INFO after a write to the subject', () => {
  let core: TestServer;
  let gateway: RunningGateway;
  let portal: TestPortal;

  beforeAll(async () => {
    core = await startTestServer();
    gateway = await startTestGateway([core.baseUrl]);
    portal = await startTestPortal({ gateways: [`${gateway.url}/gw`], secret: PORTAL_SECRET, pages: PAGES }, PORTLETS);
  });
  afterAll(async () => {
    await portal?.stop();
    await gateway?.close();
    await core?.stop();
  });

  const givenName = async (browser: Browser) => attributeOf((await browser.get('/portal/page/home')).text, 'svc_me_who', 'data-given');

  test('alice changes bob\'s given name in User Admin: each of bob\'s portal sessions shows the new one at its next render', async () => {
    const bob = Browser.loggedIn(portal, 'employees/bob', ['user']);
    const bobElsewhere = Browser.loggedIn(portal, 'employees/bob', ['user']);
    const alice = Browser.loggedIn(portal, 'employees/alice', ['admin']);
    // Read once, cached in each session.
    expect(await givenName(bob)).toBe('Bob');
    expect(await givenName(bobElsewhere)).toBe('Bob');
    expect(await givenName(alice)).toBe('Alice');

    const edit = (await alice.get('/portal/page/admin?users.p.view=edit&users.p.subject=bob')).text;
    const form = edit.split('<form').find((f) => f.includes('name="op" value="save"'));
    const action = /action="([^"]*)"/.exec(form ?? '')?.[1]?.replace(/&#38;/g, '&');
    expect(action).toBeDefined();
    const answer = await alice.post(action!, { ...ContainerWindow.formFields(edit, 'save'), givenName: 'Roberto' });
    expect(answer.status).toBe(303);
    expect((await alice.get(answer.location!)).text).toContain('bob was saved.');
    expect((await core.core.subjects.read('employees', 'bob')).attributes.givenName).toBe('Roberto');

    expect(await givenName(bob)).toBe('Roberto');
    expect(await givenName(bobElsewhere)).toBe('Roberto');
    expect(await givenName(alice)).toBe('Alice');
  });

  test('a write through the REST pass-through drops it too', async () => {
    const bob = Browser.loggedIn(portal, 'employees/bob', ['user']);
    const alice = Browser.loggedIn(portal, 'employees/alice', ['admin']);
    const before = await givenName(bob);
    expect(before).toBeTruthy();
    const put = await alice.send('PUT', '/portal/api/contexts/employees/subjects/bob', '{"subject":{"attributes":{"givenName":"Bobby"}}}', {
      'content-type': 'application/json',
      'x-requested-with': 'fetch',
      origin: portal.url,
    });
    expect(put.status).toBe(200);
    expect(await givenName(bob)).toBe('Bobby');
  });
});

describe('the portal session store\'s index of sessions by principal', () => {
  test('dies with the sessions: ended and expired sessions leave nothing behind', () => {
    let now = 1_000_000;
    const store = new PortalSessionStore({ idleSeconds: 60, absoluteSeconds: 3600, maxSessions: 10, now: () => now });
    const bob = parsePrincipalName('employees/bob')!;
    const first = store.create(bob, ['user']);
    const second = store.create(bob, ['user']);
    const carol = store.create(parsePrincipalName('employees/carol')!, []);
    for (const { session } of [first, second, carol]) session.userAttributes = Object.freeze({ givenName: 'x' });
    expect(store.indexedPrincipals).toBe(2);

    store.dropUserAttributes(bob);
    expect(first.session.userAttributes).toBeUndefined();
    expect(second.session.userAttributes).toBeUndefined();
    expect(carol.session.userAttributes).toEqual({ givenName: 'x' });

    store.end(first.cookie);
    expect(store.indexedPrincipals).toBe(2);
    now += 61_000;
    expect(store.resolve(second.cookie)).toBeUndefined();
    expect(store.indexedPrincipals).toBe(1);
    store.sweep();
    expect(store.indexedPrincipals).toBe(0);
    expect(store.size).toBe(0);
  });
});

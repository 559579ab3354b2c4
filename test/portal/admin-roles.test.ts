/**
 * `adminRoles` through the portal (SPEC 6, 10): a core whose admin role is called `superuser`, its
 * gateway, and a portal whose Administration page and portlet.json name `superuser` too. alice logs
 * in on the portal's form and administers users with User Admin as in the demo; bob is kept out.
 * Nothing in the portal, the portlets or the gateway knows what the role is called.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningGateway } from '../../gateway/src/index';
import { PORTLETS_DESCRIPTOR } from '../../portlet-adapter/src/portlets';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { startTestGateway } from '../gateway/gateway-helpers';
import { Browser, portalLogin, startTestPortal, type TestPortal } from './portal-helpers';

const ROLE = 'superuser';

/** The demo's portlet.json, its modules made absolute and its role link renamed. */
function portlets(): object[] {
  const descriptor = JSON.parse(readFileSync(PORTLETS_DESCRIPTOR, 'utf8')) as { portlets: Array<Record<string, unknown> & { module: string; preferencesValidator?: string }> };
  const absolute = (reference: string) => join(PORTLETS_DESCRIPTOR, '..', reference);
  return descriptor.portlets.map((p) => ({
    ...p,
    module: absolute(p.module),
    ...(p.preferencesValidator ? { preferencesValidator: absolute(p.preferencesValidator) } : {}),
    ...(p.securityRoleRefs ? { securityRoleRefs: [{ roleName: 'administrator', roleLink: ROLE }] } : {}),
  }));
}

/** The `<h2>` window titles of a page, in order. */
const windowTitles = (html: string) => [...html.matchAll(/<h2 class="portlet-title" id="[^"]*">([^<]*)<\/h2>/g)].map((m) => m[1]);

/** The action URL and fields of the form whose accessible name is `label`. */
function formOf(html: string, label: string): { action: string; fields: Record<string, string> } {
  const form = new RegExp(`<form [^>]*action="([^"]*)"[^>]*aria-label="${label}"[^>]*>([\\s\\S]*?)</form>`).exec(html);
  if (!form) throw new Error(`no form "${label}" on the page`);
  const decode = (text: string) => text.replace(/&amp;/g, '&').replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
  const fields = Object.fromEntries([...form[2].matchAll(/<input [^>]*name="([^"]*)"[^>]*value="([^"]*)"/g)].map((m) => [decode(m[1]), decode(m[2])]));
  return { action: decode(form[1]), fields };
}

describe('User Admin through the portal, the admin role called superuser', () => {
  let core: TestServer;
  let gateway: RunningGateway;
  let portal: TestPortal;

  beforeAll(async () => {
    core = await startTestServer({
      configure: (doc) => {
        for (const context of doc.contexts as Array<Record<string, unknown>>) context.adminRoles = [ROLE];
      },
    });
    await core.core.subjects.update('employees', 'alice', { roles: [ROLE] }, 'admin');
    gateway = await startTestGateway([core.baseUrl]);
    portal = await startTestPortal(
      {
        gateways: [`${gateway.url}/gw`],
        pages: [
          { id: 'home', title: 'Home', windows: [{ id: 'me', portlet: 'self-service', visitors: 'never' }] },
          { id: 'admin', title: 'Administration', roles: [ROLE], windows: [{ id: 'users', portlet: 'user-admin' }] },
        ],
      },
      portlets(),
    );
  });
  afterAll(async () => {
    await portal?.stop();
    await gateway?.close();
    await core?.stop();
  });

  test('alice sees Administration, searches, and edits bob; bob gets 403', async () => {
    const alice = new Browser(portal);
    await portalLogin(alice, 'alice', TEST_CREDENTIALS.users.alice);
    expect((await alice.get('/portal/page/home')).text).toContain('Administration');
    const admin = await alice.get('/portal/page/admin');
    expect(admin.status).toBe(200);
    expect(windowTitles(admin.text)).toEqual(['User Admin']);

    const search = formOf(admin.text, 'Search subjects');
    const searched = await alice.post(search.action, { ...search.fields, search: 'bob', filter: '' });
    expect(searched.status).toBe(303);
    const results = await alice.get(searched.location!);
    const edit = /href="([^"]*)" aria-label="Edit bob"/.exec(results.text)![1].replace(/&#38;/g, '&');
    const form = formOf((await alice.get(edit)).text, 'Edit bob');
    // roles and disabled are admin-only attributes: saving them takes alice being employees' admin.
    const saved = await alice.post(form.action, { ...form.fields, mail: 'bob@example.com', givenName: 'Bob', familyName: 'Bergström', roles: 'user\nauditor', disabled: 'false' });
    expect(saved.status).toBe(303);
    expect((await alice.get(saved.location!)).text).not.toMatch(/could not|not allowed|may not/i);
    expect((await core.core.subjects.read('employees', 'bob')).attributes).toMatchObject({ familyName: 'Bergström', roles: ['user', 'auditor'], disabled: 'false' });

    const bob = new Browser(portal);
    await portalLogin(bob, 'bob', TEST_CREDENTIALS.users.bob);
    expect((await bob.get('/portal/page/home')).text).not.toContain('Administration');
    expect((await bob.get('/portal/page/admin')).status).toBe(403);
  });
});

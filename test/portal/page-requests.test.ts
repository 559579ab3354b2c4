/**
 * What a portal page costs at the gateway (issue 28), counted on the gateway's /metrics exactly as
 * the bench's portal-requests scenario counts them (bench/lib/page-requests.ts): the demo portal, a
 * real gateway and a real core on port 0. Counts, not timings: bob's home page, alice's
 * Administration page and her view of one subject there (bob, with his lock and his events) take at
 * most 2 gateway requests a view, bob's "Edit profile" save (the action and the page after it) at most 3.
 */
import { requestsPerPage, requestsPerProfileSave, SUBJECT_VIEW_QUERY, type CountTarget } from '../../bench/lib/page-requests';
import type { RunningGateway } from '../../gateway/src/index';
import { PORTAL_SESSION_COOKIE } from '../../portlet-adapter/src/portal/session-store';
import type { TestServer } from '../helpers/core-server';
import { startDemoStack, type DemoStack, type TestPortal } from './portal-helpers';

/** User Admin's view of bob on the Administration page (its window is `users`). */
const SUBJECT_VIEW = `/portal/page/admin?${SUBJECT_VIEW_QUERY}`;

describe('gateway requests per portal page (issue 28)', () => {
  let core: TestServer;
  let gateway: RunningGateway;
  let portal: TestPortal;
  let stack: DemoStack | undefined;

  beforeAll(async () => {
    ({ core, gateway, portal } = stack = await startDemoStack(undefined, 'svc-page-requests-'));
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  });

  const as = (uniqueId: string, roles: string[]): CountTarget => ({
    portalUrl: portal.url,
    gatewayUrl: gateway.url,
    cookie: `${PORTAL_SESSION_COOKIE}=${portal.deps.sessions.create({ contextId: 'employees', uniqueId }, roles).cookie}`,
  });

  test('bob\'s home page (Self-Service): at most 2 a view', async () => {
    expect(await requestsPerPage(as('bob', ['user']), '/portal/page/home')).toBeLessThanOrEqual(2);
  });

  test('alice\'s Administration page (User Admin): at most 2 a view', async () => {
    expect(await requestsPerPage(as('alice', ['admin']), '/portal/page/admin')).toBeLessThanOrEqual(2);
  });

  test('alice\'s view of one subject (User Admin: bob with his status, second factor and recent events): at most 2 a view', async () => {
    const alice = as('alice', ['admin']);
    const page = await fetch(`${portal.url}${SUBJECT_VIEW}`, { headers: { cookie: alice.cookie } });
    const text = await page.text();
    // The view shows what its requests are for: the lock's status and the events, not a shorter page.
    expect(text).toContain('<h3 class="portlet-section-header">bob</h3>');
    expect(text).toContain('<h4 class="portlet-section-subheader">Recent events</h4>');
    expect(text).toContain('<dt class="portlet-form-label">Status</dt>');
    expect(await requestsPerPage(alice, SUBJECT_VIEW)).toBeLessThanOrEqual(2);
  });

  test('bob\'s "Edit profile" save, the action and the page after it: at most 3, and the page shows what was written', async () => {
    const bob = as('bob', ['user']);
    expect(await requestsPerProfileSave(bob, '/portal', { givenName: 'Roberto' })).toBeLessThanOrEqual(3);
    expect((await core.core.subjects.read('employees', 'bob')).attributes.givenName).toBe('Roberto');
    const page = await (await fetch(`${portal.url}/portal/page/home`, { headers: { cookie: bob.cookie } })).text();
    expect(page).toContain('Roberto');
  });
});

/**
 * A core stopped mid-session: each window says "The service is unavailable; try again" in its own
 * markup (its render succeeds, so the rest of the page renders), and an action says it too and
 * changes nothing. (Recovery after a restart is the demo's browser test: issue 14.)
 */
import { startSvc, textOf, windowOf, type Svc } from './setup';

let svc: Svc;
beforeAll(async () => {
  svc = await startSvc();
});
afterAll(async () => {
  await svc.portal.stop();
  svc.portal.cleanup();
  await svc.client.close();
  await svc.gateway.close();
});

test('a stopped core reads as "The service is unavailable; try again" in every window, in both phases', async () => {
  const bob = windowOf(svc, 'self-service', 'employees/bob', ['user']);
  const admin = windowOf(svc, 'user-admin', 'employees/alice', ['admin']);
  const visitor = windowOf(svc, 'registration', null);
  expect(textOf(await bob.render())).toContain('bob@example.com');

  await svc.core.stop();
  for (const window of [bob, admin, visitor]) {
    const markup = await window.render();
    expect(markup).toBe('<p class="portlet-msg-error" role="alert">The service is unavailable; try again.</p>');
  }
  await visitor.action({ op: 'register', uniqueId: 'late', mail: 'late@example.org', password: 'Late-pass-1234', passwordRepeat: 'Late-pass-1234' });
  expect(textOf(await visitor.render())).toBe('The service is unavailable; try again.');
});

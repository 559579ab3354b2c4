/**
 * A core stopped mid-session: each window says "The service is unavailable; try again" in its own
 * markup (the render succeeds, so the rest of the page renders), an action says it too and changes
 * nothing, and a core started again on the same data is used without anything else changing.
 */
import { rmSync } from 'node:fs';
import { startTestServer } from '../helpers/core-server';
import { startSvc, textOf, windowOf, type Svc } from './setup';

let svc: Svc;
beforeAll(async () => {
  svc = await startSvc();
});
afterAll(async () => {
  await svc.stop();
  rmSync(svc.core.dataDir, { recursive: true, force: true });
});

test('a stopped core reads as "The service is unavailable; try again" in every window; a restarted one serves again', async () => {
  const bob = windowOf(svc, 'self-service', 'employees/bob', ['user']);
  const visitor = windowOf(svc, 'registration', null);
  expect(textOf(await bob.render())).toContain('bob@example.com');
  const port = Number(new URL(svc.core.baseUrl).port);
  const dataDir = svc.core.dataDir;

  await svc.core.stop({ keepData: true });
  expect(textOf(await bob.render())).toBe('The service is unavailable; try again.');
  expect(textOf(await visitor.render())).toBe('The service is unavailable; try again.');
  await visitor.action({ op: 'register', uniqueId: 'late', mail: 'late@example.org', password: 'Late-pass-1234', passwordRepeat: 'Late-pass-1234' });
  expect(textOf(await visitor.render())).toContain('The service is unavailable; try again.');

  svc.core = await startTestServer({ dataDir, seed: false, configure: (doc) => void ((doc.server as { port: number }).port = port) });
  expect(textOf(await bob.render())).toContain('bob@example.com');
  await expect(svc.core.core.subjects.read('customers', 'late')).rejects.toMatchObject({ code: 'not_found' });
});

import { startTestServer, type TestServer } from '../helpers/core-server';
import { sessionCookie } from '../helpers/sessions';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

test('a promotion or demotion takes effect on the next request', async () => {
  const alice = await sessionCookie(server, 'USER', { uniqueId: 'alice', contextId: 'employees' });
  const bob = await sessionCookie(server, 'USER', { uniqueId: 'bob', contextId: 'employees' });
  const subjects = `${server.baseUrl}/resources/contexts/employees/subjects`;
  const bobReadsAlice = async () => (await fetch(`${subjects}/alice`, { headers: { cookie: bob } })).status;
  const setRoles = (roles: string[]) =>
    fetch(`${subjects}/bob`, { method: 'PUT', headers: { cookie: alice, 'content-type': 'application/json' }, body: JSON.stringify({ subject: { attributes: { roles } } }) });

  expect(await bobReadsAlice()).toBe(401);
  expect((await setRoles(['user', 'admin'])).status).toBe(200);
  expect(await bobReadsAlice()).toBe(200);
  expect((await setRoles(['user'])).status).toBe(200);
  expect(await bobReadsAlice()).toBe(401);
});

import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send } from '../helpers/http';
import { login } from '../helpers/login';

const { users } = TEST_CREDENTIALS;
let server: TestServer;
afterEach(() => server.stop());

test('a flood of cookie-less requests keeps no server state (SPEC 4, "Memory")', async () => {
  server = await startTestServer();
  const before = (await server.core.sessions.list(1_000)).length;
  for (let batch = 0; batch < 20; batch++) {
    const answers = await Promise.all(Array.from({ length: 50 }, () => send(`${server.baseUrl}/resources/session`)));
    for (const answer of answers) expect(answer.json?.session).toMatchObject({ type: 'ANON' });
  }
  expect((await server.core.sessions.list(1_000)).length).toBe(before);
});

test('a full session store refuses new sessions with 503 and evicts nobody', async () => {
  server = await startTestServer({ configure: (doc) => Object.assign(doc, { global: { 'session.maxSessions': 2 } }) });
  const first = await login(server.baseUrl, { clientid: 'svc-web', user: 'alice', password: users.alice });
  const second = await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob });
  expect([first.status, second.status]).toEqual([200, 200]);
  const third = await login(server.baseUrl, { clientid: 'svc-web', user: 'alice', password: users.alice });
  expect(third.status).toBe(503);
  expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(third.json?.code).toBe('service_unavailable');
  for (const cookie of [first.cookie!, second.cookie!]) {
    expect((await send(`${server.baseUrl}/resources/session`, { cookie })).json?.session).toMatchObject({ type: 'USER' });
  }
  // Anonymous visitors still get their stateless sessions.
  expect((await send(`${server.baseUrl}/resources/session`)).json?.session).toMatchObject({ type: 'ANON' });
});

test('a full hashing queue answers 503 with Retry-After, never a 500', async () => {
  server = await startTestServer({ hash: { maxConcurrent: 1, maxQueue: 1 } });
  const answers = await Promise.all(
    Array.from({ length: 8 }, () => login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: 'wrong-password-1' })),
  );
  const statuses = answers.map((a) => a.status);
  expect(statuses.every((s) => s === 401 || s === 503)).toBe(true);
  const refused = answers.filter((a) => a.status === 503);
  expect(refused.length).toBeGreaterThan(0);
  for (const answer of refused) expect(answer.headers.get('retry-after')).toBe('1');
});

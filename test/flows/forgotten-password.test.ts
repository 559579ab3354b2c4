import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { bodyOf } from '../helpers/json';
import { sessionCookie } from '../helpers/sessions';

let server: TestServer;
const forgot = (id: string) => `${server.baseUrl}/resources/contexts/employees/subjects/${id}/password/forgot`;

/** A visitor: keeps whatever cookie the server sets, like a browser. */
class Visitor {
  cookie = '';
  async send(url: string, method = 'GET', body?: unknown): Promise<Response> {
    const res = await fetch(url, {
      method,
      headers: { cookie: this.cookie, 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0];
    return res;
  }
}

beforeEach(async () => {
  server = await startTestServer();
});
afterEach(() => server.stop());

test('questions, answers, then one new password, which ends the subject\'s sessions', async () => {
  const bobSession = await sessionCookie(server, 'USER', { uniqueId: 'bob', contextId: 'employees' });
  const visitor = new Visitor();
  const questions = await visitor.send(forgot('bob'));
  expect(questions.status).toBe(200);
  expect(await bodyOf(questions)).toEqual({ questions: ['What was the name of your first pet?', 'In which city were you born?'] });

  expect((await visitor.send(forgot('bob'), 'PUT', { password: 'New-bob-pass-1' })).status).toBe(400);
  expect((await visitor.send(forgot('bob'), 'PUT', { answers: ['wrong', 'oslo'] })).status).toBe(400);
  const [first, second] = TEST_CREDENTIALS.answers.bob;
  const answered = await visitor.send(forgot('bob'), 'PUT', { answers: [`  ${first.toUpperCase()} `, second] });
  expect(answered.status).toBe(200);
  expect((await visitor.send(forgot('bob'), 'PUT', { password: 'New-bob-pass-1' })).status).toBe(204);
  // Once only.
  expect((await visitor.send(forgot('bob'), 'PUT', { password: 'Other-bob-pass-2' })).status).toBe(400);

  // The reset revoked bob's session (SPEC 4): it answers session_revoked, never a new ANON session.
  const stale = await fetch(`${server.baseUrl}/resources/session`, { headers: { cookie: bobSession } });
  expect(stale.status).toBe(401);
  expect(await bodyOf(stale)).toMatchObject({ code: 'session_revoked' });
  const stored = await server.core.subjects.read('employees', 'bob');
  expect((await server.hasher.verify(stored.attributes.password as string, 'New-bob-pass-1')).ok).toBe(true);
});

test('an unknown subject gets stable decoy questions and the same number of hash computations', async () => {
  const visitor = new Visitor();
  const decoy = await bodyOf(await visitor.send(forgot('nobody')));
  expect(decoy.questions).toHaveLength(2);
  expect(await bodyOf(await new Visitor().send(forgot('nobody')))).toEqual(decoy);

  const before = server.hasher.stats.started;
  const unknown = await visitor.send(forgot('nobody'), 'PUT', { answers: ['a', 'b'] });
  const unknownCost = server.hasher.stats.started - before;
  const other = new Visitor();
  await other.send(forgot('bob'));
  const mid = server.hasher.stats.started;
  const wrong = await other.send(forgot('bob'), 'PUT', { answers: ['a', 'b'] });
  expect(server.hasher.stats.started - mid).toBe(unknownCost);
  expect(unknown.status).toBe(wrong.status);
  expect((await bodyOf(unknown)).code).toBe((await bodyOf(wrong)).code);
});

test('wrong answers are throttled per subject', async () => {
  const visitor = new Visitor();
  await visitor.send(forgot('bob'));
  for (let i = 0; i < 3; i++) expect((await visitor.send(forgot('bob'), 'PUT', { answers: ['x', 'y'] })).status).toBe(400);
  const throttled = await visitor.send(forgot('bob'), 'PUT', { answers: TEST_CREDENTIALS.answers.bob });
  expect(throttled.status).toBe(429);
  expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
});

test('answers bind to the subject of the questions, and logged-in users are refused', async () => {
  const visitor = new Visitor();
  await visitor.send(forgot('bob'));
  expect((await visitor.send(forgot('alice'), 'PUT', { answers: TEST_CREDENTIALS.answers.bob })).status).toBe(400);
  const user = await sessionCookie(server, 'USER', { uniqueId: 'alice', contextId: 'employees' });
  const refused = await fetch(forgot('bob'), { headers: { cookie: user } });
  expect(refused.status).toBe(401);
  expect(refused.headers.get('x-svc-decision')).toBe('DENY');
});

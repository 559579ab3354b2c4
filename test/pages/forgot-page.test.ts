/**
 * `{base}/anon/forgot` over real HTTP: id, questions, answers and a new password as pages, over the
 * same flow as the REST routes (session binding, decoys, one wrong-answer counter, the subject's
 * sessions ended), against the real SQLite store.
 */
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send } from '../helpers/http';
import { sessionCookie } from '../helpers/sessions';
import { fieldNames, fieldValue, textOf, Visitor } from './visitor';

let server: TestServer;
const [FIRST, SECOND] = TEST_CREDENTIALS.answers.bob;

beforeEach(async () => {
  server = await startTestServer();
});
afterEach(() => server.stop());

/** A visitor who has asked for the questions of `id`. */
async function atQuestions(id: string): Promise<{ visitor: Visitor; page: string }> {
  const visitor = new Visitor(server);
  await visitor.get('/anon/forgot');
  const questions = await visitor.post('/anon/forgot', { step: 'id', context: 'employees', id });
  expect(questions.status).toBe(200);
  return { visitor, page: questions.text };
}

const answers = (id: string, given: string[]) => ({ step: 'answers', context: 'employees', id, ...Object.fromEntries(given.map((a, i) => [`answer.${i}`, a])) });

test('the first page asks for the id, in the first context with the flow', async () => {
  const page = await new Visitor(server).get('/anon/forgot');
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(fieldNames(page.text)).toEqual(['step', 'context', 'id']);
  expect(fieldValue(page.text, 'context')).toBe('employees');
  expect((await new Visitor(server).get('/anon/forgot?context=customers')).status).toBe(404);
});

test('questions, answers and a new password: the password really changes and bob\'s sessions end', async () => {
  const bob = new Visitor(server);
  await bob.logIn('bob', TEST_CREDENTIALS.users.bob);
  expect((await bob.session()).type).toBe('USER');

  const { visitor, page } = await atQuestions('bob');
  expect(textOf(page)).toContain('What was the name of your first pet?');
  expect(textOf(page)).toContain('In which city were you born?');
  expect(fieldNames(page)).toEqual(['step', 'context', 'id', 'answer.0', 'answer.1']);
  expect(visitor.cookie).toBeDefined();

  const wrong = await visitor.post('/anon/forgot', answers('bob', ['wrong', 'oslo']));
  expect(wrong.status).toBe(400);
  expect(textOf(wrong.text)).toContain('the answers do not match');
  expect(fieldNames(wrong.text)).toContain('answer.1');

  const right = await visitor.post('/anon/forgot', answers('bob', [` ${FIRST.toUpperCase()} `, SECOND]));
  expect(right.status).toBe(200);
  expect(fieldNames(right.text)).toEqual(['step', 'context', 'id', 'password']);

  const weak = await visitor.post('/anon/forgot', { step: 'password', context: 'employees', id: 'bob', password: 'password123' });
  expect(weak.status).toBe(400);
  expect(textOf(weak.text)).toContain('is too common');
  expect(weak.text).not.toContain('password123');

  const done = await visitor.post('/anon/forgot', { step: 'password', context: 'employees', id: 'bob', password: 'New-bob-pass-1' });
  expect(done.status).toBe(200);
  expect(textOf(done.text)).toContain('Your password was changed');
  // Once only.
  expect((await visitor.post('/anon/forgot', { step: 'password', context: 'employees', id: 'bob', password: 'Other-bob-pass-2' })).status).toBe(400);

  // The reset revoked bob's session (SPEC 4): it answers session_revoked, never a new ANON session.
  const revoked = await send(server.baseUrl + '/resources/session', { cookie: bob.cookie, headers: { accept: 'application/json' } });
  expect(revoked.status).toBe(401);
  expect(revoked.json).toMatchObject({ code: 'session_revoked' });
  const again = new Visitor(server);
  await again.logIn('bob', 'New-bob-pass-1');
  expect(await again.session()).toMatchObject({ type: 'USER', principal: { uniqueId: 'bob' } });
  const old = await new Visitor(server).post('/login', { user: 'bob', password: TEST_CREDENTIALS.users.bob, clientid: 'svc-web' });
  expect(old.headers.get('location')).toMatch(/\/anon\/login-error$/);
});

test('an unknown id gets stable decoy questions, and wrong answers read the same', async () => {
  const first = await atQuestions('nobody');
  const second = await atQuestions('nobody');
  expect(fieldNames(first.page)).toEqual(['step', 'context', 'id', 'answer.0', 'answer.1']);
  expect(textOf(first.page)).toBe(textOf(second.page));
  const decoy = await first.visitor.post('/anon/forgot', answers('nobody', ['a', 'b']));
  const real = await (await atQuestions('bob')).visitor.post('/anon/forgot', answers('bob', ['a', 'b']));
  expect([decoy.status, textOf(decoy.text).includes('the answers do not match')]).toEqual([real.status, true]);
});

test('the answers bind to the subject whose questions this session asked for', async () => {
  const { visitor } = await atQuestions('bob');
  const other = await visitor.post('/anon/forgot', answers('alice', [FIRST, SECOND]));
  expect(other.status).toBe(400);
  const stranger = await new Visitor(server).post('/anon/forgot', answers('bob', [FIRST, SECOND]));
  expect(stranger.status).toBe(400);
  expect(textOf(stranger.text)).toContain('ask for the questions of this subject first');
});

test('wrong answers count once per subject, whether given through the pages or the REST flow', async () => {
  const rest = `${server.baseUrl}/resources/contexts/employees/subjects/bob/password/forgot`;
  const questions = await send(rest, { headers: { accept: 'application/json' } });
  const cookie = questions.cookie;
  for (let i = 0; i < 2; i++) expect((await send(rest, { method: 'PUT', cookie, json: { answers: ['x', 'y'] } })).status).toBe(400);
  const { visitor } = await atQuestions('bob');
  expect((await visitor.post('/anon/forgot', answers('bob', ['x', 'y']))).status).toBe(400);
  const throttled = await visitor.post('/anon/forgot', answers('bob', [FIRST, SECOND]));
  expect(throttled.status).toBe(429);
  expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
});

test('cross-site posts are refused, and the flow\'s cookie is SameSite', async () => {
  const { visitor } = await atQuestions('bob');
  const cross = await visitor.post('/anon/forgot', answers('bob', [FIRST, SECOND]), { origin: 'http://evil.example' });
  expect(cross.status).toBe(403);
  const start = await send(`${server.baseUrl}/anon/forgot`, { form: { step: 'id', context: 'employees', id: 'bob' }, headers: { accept: 'text/html' } });
  expect(start.headers.getSetCookie().join('\n')).toMatch(/SVCSESSIONID=[^;]+;.*SameSite=Lax/);
});

test('a logged-in user gets 403 with an explanation', async () => {
  const user = new Visitor(server, (await sessionCookie(server, 'USER', { uniqueId: 'alice', contextId: 'employees' })).split('=')[1]);
  const page = await user.get('/anon/forgot');
  expect(page.status).toBe(403);
  expect(textOf(page.text)).toContain('log out first');
});

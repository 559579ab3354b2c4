/**
 * The forgotten-password flow does not tell which accounts exist (SPEC section 7): `{s}` is resolved
 * as login resolves a name (uniqueId or any authenid value, case-insensitively), and a missing,
 * disabled or question-less subject gets decoys derived from the folded name, so that no pair of
 * requests tells a real subject from a missing one. Real server, real SQLite store.
 */
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send, type Sent } from '../helpers/http';

let server: TestServer;
const forgot = (name: string) => `${server.baseUrl}/resources/contexts/employees/subjects/${name}/password/forgot`;
const QUESTIONS = ['What was the name of your first pet?', 'In which city were you born?'];

beforeEach(async () => {
  server = await startTestServer({ configure: (doc) => Object.assign(doc, { global: { 'flow.startsPerAddress': 1000 } }) });
  // dave is disabled (with questions and answers); carl has none.
  await server.core.subjects.create('employees', 'dave', { mail: 'dave@example.com', disabled: 'true', passwordQuestions: QUESTIONS, passwordAnswers: ['a', 'b'] }, 'admin');
  await server.core.subjects.create('employees', 'carl', { mail: 'carl@example.com' }, 'admin');
});
afterEach(() => server.stop());

/** The flow state the answer's cookie carries, as the visitor can read it (the payload is signed, not hidden). */
function flowStateOf(answer: Sent): unknown {
  const payload = answer.cookie?.split('.')[1];
  return payload === undefined ? undefined : JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')).d;
}

/** What a new visitor sees when asking for the questions of `name`: everything but the date and request id. */
async function questionsOf(name: string): Promise<{ status: number; body: string; type: string | null; cache: string | null; cookieLength: number | undefined; state: unknown; cookie?: string }> {
  const answer = await send(forgot(name), { headers: { accept: 'application/json' } });
  return {
    status: answer.status,
    body: answer.text,
    type: answer.headers.get('content-type'),
    cache: answer.headers.get('cache-control'),
    cookieLength: answer.cookie?.length,
    state: flowStateOf(answer),
    cookie: answer.cookie,
  };
}

const sight = async (name: string) => {
  const { cookie: _cookie, ...seen } = await questionsOf(name);
  return seen;
};

/** What wrong answers for `name` look like, and how many hash computations they cost. */
async function wrongAnswersOf(name: string): Promise<{ status: number; code: unknown; hashes: number }> {
  const { cookie } = await questionsOf(name);
  const before = server.hasher.stats.started;
  const answer = await send(forgot(name), { method: 'PUT', cookie, json: { answers: ['wrong', 'wrong'] } });
  return { status: answer.status, code: answer.json?.code, hashes: server.hasher.stats.started - before };
}

test('every spelling of a real name gets its real questions: bob, BOB, Bob and its mail in any case', async () => {
  const bob = await sight('bob');
  expect(JSON.parse(bob.body)).toEqual({ questions: QUESTIONS });
  for (const name of ['BOB', 'Bob', 'bOb']) expect(await sight(name)).toEqual(bob);
  expect(JSON.parse((await sight('BOB@Example.COM')).body)).toEqual({ questions: QUESTIONS });
});

test.each([
  ['a missing name', 'nobody'],
  ['a disabled subject', 'dave'],
  ['a subject without questions', 'carl'],
])('%s gets the same decoys in every spelling, and the same decoys once it is gone', async (_kind, name) => {
  const seen = await sight(name);
  expect(seen.status).toBe(200);
  expect(JSON.parse(seen.body).questions).toHaveLength(2);
  expect(await sight(name.toUpperCase())).toEqual(seen);
  expect(await sight(name[0].toUpperCase() + name.slice(1))).toEqual(seen);
  // Had it never existed, the answer would be the same: nothing in it comes from the subject.
  if (await server.core.subjects.context('employees').store.get('employees', name)) await server.core.subjects.delete('employees', name);
  expect(await sight(name)).toEqual(seen);
});

test('the flow state in the cookie names what the visitor gave, never what it resolved to', async () => {
  expect((await sight('BOB')).state).toEqual({ forgottenPassword: { contextId: 'employees', name: 'bob' } });
  expect((await sight('Dave')).state).toEqual({ forgottenPassword: { contextId: 'employees', name: 'dave' } });
  expect((await sight('NOBODY')).state).toEqual({ forgottenPassword: { contextId: 'employees', name: 'nobody' } });
});

test('wrong answers read the same and cost the same for real, missing, disabled and question-less names', async () => {
  const real = await wrongAnswersOf('BOB');
  expect(real).toEqual({ status: 400, code: 'invalid_request', hashes: 2 });
  for (const name of ['bob', 'nobody', 'NOBODY', 'dave', 'DAVE', 'carl', 'Carl']) expect(await wrongAnswersOf(name)).toEqual(real);
});

test('another spelling of a real name is the same subject: its answers open the reset', async () => {
  const { cookie } = await questionsOf('BOB@EXAMPLE.COM');
  const answered = await send(forgot('BOB@EXAMPLE.COM'), { method: 'PUT', cookie, json: { answers: TEST_CREDENTIALS.answers.bob } });
  expect(answered.status).toBe(200);
  const reset = await send(forgot('bob@example.com'), { method: 'PUT', cookie: answered.cookie, json: { password: 'New-bob-pass-77' } });
  expect(reset.status).toBe(204);
  const stored = await server.core.subjects.read('employees', 'bob');
  expect((await server.hasher.verify(stored.attributes.password as string, 'New-bob-pass-77')).ok).toBe(true);
});

/**
 * The forgotten-password flow's limits and memory (SPEC sections 4 "Memory" and 7): its state lives in
 * the signed cookie, never in the session store; flow starts are limited per address; a wrong answer
 * takes its slot in the subject's counter before anything is verified, so concurrent attempts cannot
 * pass the limit; a reset happens once per matching answers. Real server, real SQLite store.
 */
import { TooManyRequests } from '../../common/src/errors';
import type { FlowSession } from '../../server/src/flows/forgotten-password';
import { startTestServer, TEST_CREDENTIALS, type TestServer, type TestServerOptions } from '../helpers/core-server';
import { send } from '../helpers/http';
import { rawSend } from '../helpers/tls-http';

let server: TestServer;
const forgot = (name: string) => `${server.baseUrl}/resources/contexts/employees/subjects/${name}/password/forgot`;
const ANSWERS = TEST_CREDENTIALS.answers.bob;

const start = (options: TestServerOptions = {}) =>
  startTestServer(options).then((started) => {
    server = started;
  });
afterEach(() => server.stop());

/** A visitor's cookie after asking for the questions of `name`. */
async function questions(name: string): Promise<string> {
  const answer = await send(forgot(name), { headers: { accept: 'application/json' } });
  expect(answer.status).toBe(200);
  return answer.cookie!;
}

/** The flow data a stateless cookie value carries (readable by the visitor; signed, not hidden). */
const dataOf = (cookie: string): unknown => JSON.parse(Buffer.from(cookie.split('.')[1], 'base64url').toString()).d;

describe('with the default limits', () => {
  beforeEach(() => start());

  test('the whole flow stores nothing: its state is in the signed cookie', async () => {
    let cookie = await questions('bob');
    const answered = await send(forgot('bob'), { method: 'PUT', cookie, json: { answers: ANSWERS } });
    expect(answered.status).toBe(200);
    cookie = answered.cookie!;
    expect(cookie).toMatch(/^s1\./);
    for (let i = 0; i < 10; i++) await questions(`nobody${i}`);
    await expect(server.core.sessions.list(100)).resolves.toEqual([]);
    const reset = await send(forgot('bob'), { method: 'PUT', cookie, json: { password: 'New-bob-pass-31' } });
    expect(reset.status).toBe(204);
    // The answer carries a value without the flow's state.
    expect(dataOf(reset.cookie!)).toBeUndefined();
    await expect(server.core.sessions.list(100)).resolves.toEqual([]);
  });

  test('50 concurrent wrong answers: 3 are verified, the rest refused unverified, then the right ones are refused too', async () => {
    const cookie = await questions('bob');
    const before = server.hasher.stats.started;
    const wrong = await Promise.all(Array.from({ length: 50 }, () => send(forgot('bob'), { method: 'PUT', cookie, json: { answers: ['x', 'y'] } })));
    const statuses = wrong.map((a) => a.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(47);
    const right = await send(forgot('bob'), { method: 'PUT', cookie, json: { answers: ANSWERS } });
    expect(right.status).toBe(429);
    expect(right.headers.get('retry-after')).toMatch(/^\d+$/);
    // Two answers per verified attempt, none for a refused one; every attempt is counted.
    expect(server.hasher.stats.started - before).toBe(6);
    await expect(server.core.forgottenPassword.wrongAnswers.attempts('employees/bob')).resolves.toBe(51);
  });

  test('a right answer sent with concurrent wrong ones does not succeed past the limit they reach', async () => {
    const cookieValue = await questions('bob');
    const { session } = await server.core.sessions.resolve(cookieValue);
    const flow: FlowSession = { session: session!, cookieValue, peer: '127.0.0.1' };
    const forgotten = server.core.forgottenPassword;
    // All in one turn of the event loop, the right answers last, as when they race over the network.
    const attempts = [...Array.from({ length: 20 }, () => forgotten.answer(flow, 'employees', 'bob', ['x', 'y'])), forgotten.answer(flow, 'employees', 'bob', ANSWERS)];
    const settled = await Promise.allSettled(attempts);
    const right = settled[settled.length - 1];
    expect(right.status).toBe('rejected');
    expect((right as PromiseRejectedResult).reason).toBeInstanceOf(TooManyRequests);
    expect(settled.filter((s) => s.status === 'rejected' && s.reason instanceof TooManyRequests)).toHaveLength(18);
  });

  test('a reset happens once: a copy of the answered cookie, or two at once, cannot reset twice', async () => {
    const answered = await send(forgot('bob'), { method: 'PUT', cookie: await questions('bob'), json: { answers: ANSWERS } });
    const copy = answered.cookie!;
    const both = await Promise.all(['New-bob-pass-41', 'New-bob-pass-42'].map((password) => send(forgot('bob'), { method: 'PUT', cookie: copy, json: { password } })));
    expect(both.map((a) => a.status).sort()).toEqual([204, 400]);
    expect((await send(forgot('bob'), { method: 'PUT', cookie: copy, json: { password: 'New-bob-pass-43' } })).status).toBe(400);
  });

  test('a weak password does not use up the reset', async () => {
    const answered = await send(forgot('bob'), { method: 'PUT', cookie: await questions('bob'), json: { answers: ANSWERS } });
    expect((await send(forgot('bob'), { method: 'PUT', cookie: answered.cookie, json: { password: 'password123' } })).json?.code).toBe('weak_password');
    expect((await send(forgot('bob'), { method: 'PUT', cookie: answered.cookie, json: { password: 'New-bob-pass-51' } })).status).toBe(204);
  });
});

describe('flow starts per address', () => {
  beforeEach(() => start({ configure: (doc) => Object.assign(doc, { global: { 'flow.startsPerAddress': 3 } }) }));

  test('are limited, over REST and the pages alike; asking again in a started flow is no new start; other addresses go on', async () => {
    const bound = await questions('bob');
    await questions('alice');
    await questions('nobody');
    const refused = await send(forgot('carol'), { headers: { accept: 'application/json' } });
    expect(refused.status).toBe(429);
    expect(refused.json?.code).toBe('too_many_requests');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.cookie === undefined || dataOf(refused.cookie) === undefined).toBe(true);
    const page = await send(`${server.baseUrl}/anon/forgot`, { form: { step: 'id', context: 'employees', id: 'carol' }, headers: { accept: 'text/html' } });
    expect(page.status).toBe(429);
    expect(page.text).toContain('too many forgotten-password requests from this address');
    // The visitor whose flow is bound to bob still sees bob's questions.
    expect((await send(forgot('bob'), { cookie: bound, headers: { accept: 'application/json' } })).status).toBe(200);
    expect((await rawSend(forgot('carol'), { localAddress: '127.0.0.2' })).status).toBe(200);
    await expect(server.core.forgottenPassword.starts.attempts('127.0.0.1')).resolves.toBe(5);
  });
});

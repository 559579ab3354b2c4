/**
 * Property: for any session, operation, context and subject, each of the four check forms (and the
 * AuthZEN evaluation) gives exactly the answer the real request meets at authorization, and no
 * check changes the store.
 *
 * How the real request is observed without changing data: the subject service's write methods are
 * replaced by a stub that throws a distinctive 418. A real request that passes
 * authorization reaches the stub (or, for READ and SEARCH, simply answers); one refused at
 * authorization never does. Since the stub also makes every write impossible, the store stays as
 * seeded for the whole run, sessions are never ended by a DELETE, and the dump comparison proves
 * that the checks (which must never reach the stub) wrote nothing either.
 */
import fc from 'fast-check';
import { OPERATIONS, type Operation } from '../../common/src/wire/operations';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { call, CONTEXTS, dumpStore, sessionCookies, stubSubjectWrites, SUBJECTS, WHO, type Answer, type Who } from './helpers';

let server: TestServer;
let who: Record<Who, string>;
let reached = 0;

beforeAll(async () => {
  server = await startTestServer();
  who = await sessionCookies(server);
  stubSubjectWrites(server, () => (reached += 1));
});
afterAll(async () => {
  jest.restoreAllMocks();
  await server.stop();
});

const METHOD: Record<Operation, string> = { CREATE: 'POST', READ: 'GET', UPDATE: 'PUT', DELETE: 'DELETE', SEARCH: 'GET' };
const BODY: Partial<Record<Operation, unknown>> = {
  CREATE: { subject: { uniqueId: 'newbie', attributes: { mail: 'newbie@example.com', password: 'Newbie-pass-123' } } },
  UPDATE: { subject: { attributes: { givenName: 'Changed' } } },
};

type Outcome = 'ALLOW' | 'DENY' | `HTTP ${number}`;

/** The seed's and SPEC's rules for the demo data, written out independently of the policies. */
function model(w: Who, op: Operation, ctx: string, sid: string): Outcome {
  if (ctx === 'nowhere') return 'HTTP 404';
  if (sid === 'svcadmin' && (op === 'UPDATE' || op === 'DELETE')) return 'DENY';
  if (w === 'SYSTEM') return 'ALLOW';
  if (w === 'ALICE') return ctx === 'employees' ? 'ALLOW' : 'DENY';
  if (w === 'BOB') return ctx === 'employees' && sid === 'bob' && (op === 'READ' || op === 'UPDATE') ? 'ALLOW' : 'DENY';
  return ctx === 'customers' && op === 'CREATE' ? 'ALLOW' : 'DENY';
}

/** A check's answer in the model's terms; anything malformed fails the property loudly. */
function checkOutcome(a: Answer, head = false): Outcome {
  if (a.status === 200 && a.decision === 'ALLOW') return 'ALLOW';
  if (a.status === 401 && a.decision === 'DENY' && a.authenticate?.includes('error="access_denied"')) {
    if (!head) expect(a.body?.decision).toBe('DENY');
    return 'DENY';
  }
  return `HTTP ${a.status}`;
}

/** What the real request met at authorization: refused there, or let through to the operation. */
function realOutcome(a: Answer, ctx: string): Outcome {
  if ((a.status === 401 || a.status === 403) && (a.decision === 'DENY' || a.code === 'access_denied')) return 'DENY';
  if (ctx === 'nowhere') return `HTTP ${a.status}`; // refused before authorization: the path names nothing
  return 'ALLOW';
}

test('the four check forms and AuthZEN equal the real request at authorization, and change nothing', async () => {
  const before = await dumpStore(server);
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...WHO),
      fc.constantFrom(...OPERATIONS),
      fc.constantFrom(...CONTEXTS),
      fc.constantFrom(...SUBJECTS),
      fc.constantFrom('/resources', ''),
      async (w, op, ctx, sid, mount) => {
        const one = op === 'READ' || op === 'UPDATE' || op === 'DELETE';
        const tail = `${ctx}/subjects${one ? `/${sid}` : ''}`;
        const path = `${server.baseUrl}${mount}/contexts/${tail}`;
        const cookie = who[w];
        const body = BODY[op] === undefined ? undefined : JSON.stringify(BODY[op]);
        const json = { cookie, 'content-type': 'application/json' };
        const reachedBefore = reached;

        const forms = [
          checkOutcome(await call(path, { method: 'HEAD', headers: { cookie, 'x-operation': op } }), true),
          checkOutcome(await call(`${path}?isAllowed=${op}`, { method: METHOD[op], headers: json, body })),
          checkOutcome(await call(`${path}?ISALLOWED=${op}`, { method: 'GET', headers: { cookie } })),
          checkOutcome(await call(`${server.baseUrl}${mount}/authz/${tail}`, { method: METHOD[op], headers: json, body })),
        ];
        const resource = one ? { type: 'subject', id: `${ctx}/${sid}` } : { type: 'subjects', id: ctx };
        const evaluation = await call(`${server.baseUrl}/access/v1/evaluation`, { method: 'POST', headers: json, body: JSON.stringify({ action: { name: op }, resource }) });
        const authzen: Outcome = evaluation.status === 200 ? (evaluation.body?.decision === true ? 'ALLOW' : 'DENY') : `HTTP ${evaluation.status}`;
        expect(reached).toBe(reachedBefore); // no check reached an operation

        const real = realOutcome(await call(path, { method: METHOD[op], headers: json, body }), ctx);
        const expected = model(w, op, ctx, sid);
        expect({ forms, authzen, real }).toEqual({ forms: [expected, expected, expected, expected], authzen: expected, real: expected });
      },
    ),
    { numRuns: 80 },
  );
  expect(await dumpStore(server)).toBe(before);
  expect(reached).toBeGreaterThan(0); // the real writes did pass authorization, so the stub was met
});

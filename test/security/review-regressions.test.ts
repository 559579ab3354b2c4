/**
 * Reproductions from the outside security review (issue 11, items 4 and 6), each refused now:
 * hostile XML and JSON bodies are 400 malformed_body in our own words, and a near-miss spelling of
 * `isAllowed` is 400 invalid_operation instead of performing the operation it meant to check.
 */
import { dumpStore, sessionCookies, type Who } from '../authorization/helpers';
import { startTestServer, type TestServer } from '../helpers/core-server';

let server: TestServer;
let who: Record<Who, string>;
const subjects = (context = 'employees') => `${server.baseUrl}/resources/contexts/${context}/subjects`;

beforeAll(async () => {
  server = await startTestServer();
  who = await sessionCookies(server);
});
afterAll(() => server.stop());

const nested = (depth: number) => '<a>'.repeat(depth) + 'x' + '</a>'.repeat(depth);
const nestedJson = (depth: number) => '{"subject":'.repeat(depth) + '{}' + '}'.repeat(depth);

describe('item 4: hostile bodies are 400 malformed_body, never 500, and say nothing of the parser', () => {
  test.each([
    ['an XML element __proto__', 'application/xml', '<subject><__proto__>x</__proto__></subject>'],
    ['an XML element constructor', 'application/xml', '<subject><constructor>x</constructor></subject>'],
    ['an XML element prototype', 'application/xml', '<subject><prototype>x</prototype></subject>'],
    ['an XML element hasOwnProperty (which the parser would rename)', 'application/xml', '<subject><uniqueId>h</uniqueId><attributes><hasOwnProperty>x</hasOwnProperty></attributes></subject>'],
    ['XML nested 33 deep', 'application/xml', nested(33)],
    ['XML nested 100 000 deep', 'application/xml', nested(100_000)],
    ['JSON nested 33 deep', 'application/json', nestedJson(33)],
    ['JSON nested 100 000 deep', 'application/json', '['.repeat(100_000) + ']'.repeat(100_000)],
    ['a JSON key __proto__', 'application/json', '{"subject":{"uniqueId":"p","attributes":{"__proto__":{"roles":["admin"]}}}}'],
    ['duplicate JSON keys', 'application/json', '{"subject":{"uniqueId":"d","uniqueId":"admin"}}'],
    ['duplicate JSON keys spelled with an escape', 'application/json', '{"subject":{"uniqueId":"d","uniqueI\\u0064":"admin"}}'],
  ])('%s', async (_what, type, body) => {
    const before = await dumpStore(server);
    // An admin's CREATE, and a visitor's registration (customers is open to it).
    for (const [cookie, context] of [[who.ALICE, 'employees'], ['', 'customers']]) {
      const res = await fetch(subjects(context), { method: 'POST', headers: { cookie, 'content-type': type, accept: 'application/json' }, body });
      const problem = (await res.json()) as { code: string; detail: string };
      expect([res.status, problem.code]).toEqual([400, 'malformed_body']);
      expect(problem.detail).not.toMatch(/Maximum call stack|SECURITY|reserved JavaScript|Unexpected token|at position \d+ \(|stack/i);
    }
    expect(await dumpStore(server)).toBe(before);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  test('a document 32 deep passes the nesting limit (SPEC 3) and is judged by its shape', async () => {
    const res = await fetch(subjects(), { method: 'POST', headers: { cookie: who.ALICE, 'content-type': 'application/xml' }, body: nested(32) });
    expect((await res.json()) as { detail: string }).toMatchObject({ detail: 'the body must be {"subject": {...}}' });
  });
});

describe('item 6: a near-miss of isAllowed is 400 invalid_operation and performs nothing', () => {
  beforeEach(async () => {
    if (!(await server.core.subjects.context('employees').store.get('employees', 'tmp'))) {
      const res = await fetch(subjects(), { method: 'POST', headers: { cookie: who.ALICE, 'content-type': 'application/json' }, body: JSON.stringify({ subject: { uniqueId: 'tmp', attributes: { mail: 'tmp@example.com' } } }) });
      expect(res.status).toBe(201);
    }
  });

  test.each(['isAllowed[]=DELETE', 'isAllowed%00=DELETE', 'isAllowed%20=DELETE', '%20isAllowed=DELETE', 'IsAllowed%5B%5D=DELETE', 'isAllowed%2500=DELETE', 'is%C2%ADAllowed=DELETE', '%EF%BD%89sAllowed=DELETE', 'isAllowed%09=', 'isAllowed=DELETE&isAllowed%20=DELETE'])('DELETE ?%s', async (query) => {
    for (const mount of ['/resources', '']) {
      const before = await dumpStore(server);
      const res = await fetch(`${server.baseUrl}${mount}/contexts/employees/subjects/tmp?${query}`, { method: 'DELETE', headers: { cookie: who.ALICE, accept: 'application/json' } });
      expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([400, 'invalid_operation']);
      expect(await dumpStore(server)).toBe(before);
    }
  });

  test('names that merely contain the word, and the exact name in any case, keep their meaning', async () => {
    const exact = await fetch(`${subjects()}/tmp?ISALLOWED=DELETE`, { method: 'DELETE', headers: { cookie: who.ALICE } });
    expect([exact.status, exact.headers.get('x-svc-decision')]).toEqual([200, 'ALLOW']);
    const other = await fetch(`${subjects()}/tmp?notisAllowed=1`, { headers: { cookie: who.ALICE } });
    expect(other.status).toBe(200);
    expect(await server.core.subjects.context('employees').store.get('employees', 'tmp')).toBeDefined();
  });
});

/**
 * `adminRoles` (SPEC section 6): renaming the admin role is a configuration change only. A core whose
 * contexts call their admin role `superuser` (and whose alice holds `superuser`) answers every
 * request of a battery — REST operations, attribute mutability, the check in its forms, OPTIONS and
 * AuthZEN — exactly as the demo-shaped core does, the role's name aside.
 */
import { startTestServer, type TestServer } from '../helpers/core-server';
import { call, sessionCookies, type Answer, type Who } from './helpers';

/** A context's admin role renamed: adminRoles in the contexts, and alice holding the new name. */
function renameAdminRole(doc: Record<string, unknown>): void {
  for (const context of doc.contexts as Array<Record<string, unknown>>) context.adminRoles = ['superuser'];
}

async function startRenamed(configure: (doc: Record<string, unknown>) => void = renameAdminRole): Promise<TestServer> {
  const server = await startTestServer({ configure });
  await server.core.subjects.update('employees', 'alice', { roles: ['superuser'] }, 'admin');
  return server;
}

interface Step {
  who: Who;
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

const json = { 'content-type': 'application/json' };
const subjects = '/resources/contexts/employees/subjects';
const evaluation = (action: string, resource: { type: string; id: string }) => ({ action: { name: action }, resource });

/** The battery, in order (writes included: each server starts from the same seed). */
const STEPS: Step[] = [
  // The check, forms 2–4, and OPTIONS: decisions and the reason only admins and SYSTEM see.
  ...(['ALICE', 'BOB', 'SYSTEM', 'ANON'] as const).flatMap((who): Step[] => [
    { who, method: 'GET', path: `${subjects}/bob?isAllowed=READ` },
    { who, method: 'DELETE', path: `${subjects}/bob?isAllowed=DELETE` },
    { who, method: 'GET', path: `${subjects}/ghost?isAllowed=READ` },
    { who, method: 'GET', path: `${subjects}?isAllowed=SEARCH` },
    { who, method: 'POST', path: `/authz/employees/subjects` },
    { who, method: 'PUT', path: `/authz/employees/subjects/alice` },
    { who, method: 'GET', path: `/resources/contexts/customers/subjects?isAllowed=SEARCH` },
    { who, method: 'GET', path: `/resources/session?isAllowed=READ` },
    { who, method: 'OPTIONS', path: `${subjects}/bob` },
    { who, method: 'OPTIONS', path: subjects },
    {
      who,
      method: 'POST',
      path: '/access/v1/evaluations',
      headers: json,
      body: {
        evaluations: [
          evaluation('DELETE', { type: 'subject', id: 'employees/bob' }),
          evaluation('READ', { type: 'subject', id: 'employees/alice' }),
          evaluation('SEARCH', { type: 'subjects', id: 'employees' }),
          evaluation('SEARCH', { type: 'subjects', id: 'customers' }),
          evaluation('UPDATE', { type: 'subject.lockout', id: 'employees/bob' }),
        ],
      },
    },
  ]),
  // REST: what mutability lets bob write, and what alice may do as an admin (disabling bob last: it ends his sessions).
  { who: 'BOB', method: 'PUT', path: `${subjects}/bob`, headers: json, body: { subject: { attributes: { roles: ['superuser'] } } } },
  { who: 'BOB', method: 'PUT', path: `${subjects}/bob`, headers: json, body: { subject: { attributes: { givenName: 'Bobby' } } } },
  { who: 'BOB', method: 'GET', path: `${subjects}?search=a` },
  { who: 'ALICE', method: 'GET', path: `${subjects}?search=b` },
  { who: 'ALICE', method: 'GET', path: `${subjects}/bob` },
  { who: 'ALICE', method: 'PUT', path: `${subjects}/bob`, headers: json, body: { subject: { attributes: { disabled: 'true', givenName: 'Robert' } } } },
  { who: 'ALICE', method: 'PUT', path: `${subjects}/bob`, headers: json, body: { subject: { attributes: { disabled: null, roles: ['user', 'auditor'] } } } },
  { who: 'ALICE', method: 'POST', path: subjects, headers: json, body: { subject: { uniqueId: 'carol', attributes: { mail: 'carol@example.com', roles: ['user'], password: 'Carol-pass-12345' } } } },
  { who: 'ALICE', method: 'DELETE', path: `${subjects}/bob/lockout` },
  { who: 'ALICE', method: 'DELETE', path: `${subjects}/carol` },
  { who: 'ALICE', method: 'GET', path: '/resources/contexts/customers/subjects' },
  { who: 'SYSTEM', method: 'PUT', path: `${subjects}/alice`, headers: json, body: { subject: { attributes: { familyName: 'Andersen' } } } },
];

/** An answer with what differs between two servers by construction (ETags, times) left out. */
function comparable(answer: Answer & { allow: string | null }): unknown {
  const text = JSON.stringify({ ...answer, body: answer.body ?? null });
  return JSON.parse(text.replace(/"(lastModified|created|modified|version)":("[^"]*"|\d+)/g, '"$1":"…"'));
}

async function run(server: TestServer): Promise<unknown[]> {
  const who = await sessionCookies(server);
  const answers: unknown[] = [];
  for (const step of STEPS) {
    const headers = { cookie: who[step.who], ...step.headers };
    const init = { method: step.method, headers, ...(step.body === undefined ? {} : { body: JSON.stringify(step.body) }) };
    const answer = await call(server.baseUrl + step.path, init);
    const res = step.method === 'OPTIONS' ? await fetch(server.baseUrl + step.path, init) : undefined;
    answers.push(comparable({ ...answer, allow: res?.headers.get('allow') ?? null }));
  }
  return answers;
}

describe('a core whose admin role is called superuser', () => {
  let demo: TestServer;
  let renamed: TestServer;
  beforeAll(async () => {
    [demo, renamed] = await Promise.all([startTestServer(), startRenamed()]);
  });
  afterAll(() => Promise.all([demo?.stop(), renamed?.stop()]));

  test('answers the REST operations, the check, OPTIONS and AuthZEN exactly as the demo-shaped core, the name aside', async () => {
    const expected = await run(demo);
    const actual = await run(renamed);
    // The role's name is the only difference: alice's roles attribute, and the role bob may not give himself.
    const renamedBack = JSON.parse(JSON.stringify(actual).replaceAll('superuser', 'admin'));
    STEPS.forEach((step, i) => expect({ step, answer: renamedBack[i] }).toEqual({ step, answer: expected[i] }));
    // The battery means something: alice was an admin on both, bob was refused the admin-only write.
    expect(expected).toContainEqual(expect.objectContaining({ status: 200, body: expect.objectContaining({ reason: 'admin-manages-own-context' }) }));
    expect(expected).toContainEqual(expect.objectContaining({ status: 400, code: 'attribute_not_writable' }));
    expect(expected.filter((answer) => (answer as Answer).code === 'invalid_attributes')).toEqual([]);
    expect(await renamed.core.subjects.read('employees', 'bob')).toMatchObject({ attributes: { givenName: 'Robert', roles: ['user', 'auditor'] } });
  });

  test("the role the demo calls admin is no one's admin role there", async () => {
    const who = await sessionCookies(renamed);
    await renamed.core.subjects.update('employees', 'bob', { roles: ['admin'] }, 'admin');
    try {
      const check = await call(`${renamed.baseUrl}${subjects}/alice?isAllowed=DELETE`, { method: 'DELETE', headers: { cookie: who.BOB } });
      expect([check.status, check.body?.reason]).toEqual([401, 'denied']);
      const write = await call(`${renamed.baseUrl}${subjects}/bob`, { method: 'PUT', headers: { cookie: who.BOB, ...json }, body: JSON.stringify({ subject: { attributes: { disabled: 'true' } } }) });
      expect([write.status, write.code]).toEqual([400, 'attribute_not_writable']);
    } finally {
      await renamed.core.subjects.update('employees', 'bob', { roles: ['user'] }, 'admin');
    }
  });
});

test("configured policies that call the admin role superuser: attribute mutability follows the context's adminRoles", async () => {
  // An operator's own policy set, renaming the role there too (the finding: the decision point
  // allowed alice's write, then mutability treated her as "self" because the code said 'admin').
  const policies = [
    { id: 'superusers-manage-employees', effect: 'allow', sessionTypes: ['USER'], roles: ['superuser'], operations: ['READ', 'UPDATE'], targets: ['contexts/employees/subjects/*'] },
  ];
  const write = async (server: TestServer) => {
    const who = await sessionCookies(server);
    const body = JSON.stringify({ subject: { attributes: { disabled: 'true' } } });
    return call(`${server.baseUrl}${subjects}/bob`, { method: 'PUT', headers: { cookie: who.ALICE, ...json }, body });
  };
  const withoutAdminRoles = await startRenamed((doc) => (doc.policies = policies));
  const withAdminRoles = await startRenamed((doc) => {
    doc.policies = policies;
    renameAdminRole(doc);
  });
  try {
    expect(await write(withoutAdminRoles)).toMatchObject({ status: 400, code: 'attribute_not_writable' });
    expect(await write(withAdminRoles)).toMatchObject({ status: 200, decision: null });
    expect((await withAdminRoles.core.subjects.read('employees', 'bob')).attributes.disabled).toBe('true');
  } finally {
    await Promise.all([withoutAdminRoles.stop(), withAdminRoles.stop()]);
  }
});

/**
 * Each shipped default policy (SPEC section 6) against the policy decision point directly (pure, no
 * HTTP), including the fixed rules a configuration cannot lift; then a few of them through HTTP.
 */
import type { Operation, SessionType } from '../../server/src/config/types';
import { defaultPolicies } from '../../server/src/policy/default-policies';
import { PolicyDecisionPoint } from '../../server/src/policy/policy-decision-point';
import type { Session } from '../../server/src/sessions/session';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { call, sessionCookies, type Who } from './helpers';

const contexts = [
  { id: 'employees', registration: { enabled: false, attributes: [] }, adminRoles: ['admin'] },
  { id: 'customers', registration: { enabled: true, attributes: ['uniqueId', 'mail'] }, adminRoles: ['admin'] },
];
const pdp = PolicyDecisionPoint.fromConfig({
  policies: defaultPolicies(contexts),
  reservedIds: ['root', 'a.b'],
  system: { userId: 'svcadmin', passwordHash: '$argon2id$unused' },
});

function session(type: SessionType, principal?: string, clientId = 'svc-web'): Session {
  const [contextId, uniqueId] = principal?.split('/') ?? [];
  return {
    handle: 'h',
    type,
    clientId,
    principal: principal ? { contextId, uniqueId } : null,
    level: type === 'ANON' || type === 'INTERNAL' ? 0 : 2,
    authenticator: 'test',
    created: 0,
    lastAccess: 0,
    stateless: false,
  };
}

const ANON = session('ANON', undefined, '');
const INTERNAL = session('INTERNAL', undefined, '');
const BOB = session('USER', 'employees/bob');
const ALICE = session('USER', 'employees/alice');
const CAROL = session('USER', 'customers/carol');
const SYSTEM = session('SYSTEM', '/svcadmin');

type Row = [label: string, s: Session, roles: string[], op: Operation, target: string, decision: 'ALLOW' | 'DENY', policy: string];

const ROWS: Row[] = [
  ['everyone reads own session (ANON)', ANON, [], 'READ', 'session', 'ALLOW', 'everyone-reads-own-session'],
  ['INTERNAL reads no session (it is never shown)', INTERNAL, [], 'READ', 'session', 'DENY', 'default_deny'],
  ['nobody updates the session resource', BOB, [], 'UPDATE', 'session', 'DENY', 'default_deny'],
  ['ANON lists contexts', ANON, [], 'SEARCH', 'contexts', 'ALLOW', 'everyone-lists-contexts'],
  ['INTERNAL does not list contexts', INTERNAL, [], 'SEARCH', 'contexts', 'DENY', 'default_deny'],
  ['USER describes a context', BOB, [], 'READ', 'contexts/employees', 'ALLOW', 'everyone-describes-contexts'],
  ['describing is READ only', BOB, [], 'UPDATE', 'contexts/employees', 'DENY', 'default_deny'],
  ['USER reads itself', BOB, ['user'], 'READ', 'contexts/employees/subjects/bob', 'ALLOW', 'user-manages-self'],
  ['USER updates itself', BOB, ['user'], 'UPDATE', 'contexts/employees/subjects/bob', 'ALLOW', 'user-manages-self'],
  ['USER changes its own password', BOB, ['user'], 'UPDATE', 'contexts/employees/subjects/bob/password', 'ALLOW', 'user-manages-self'],
  ['USER does not delete itself', BOB, ['user'], 'DELETE', 'contexts/employees/subjects/bob', 'DENY', 'default_deny'],
  ['USER does not read another', BOB, ['user'], 'READ', 'contexts/employees/subjects/alice', 'DENY', 'default_deny'],
  ['USER does not search', BOB, ['user'], 'SEARCH', 'contexts/employees/subjects', 'DENY', 'default_deny'],
  ['USER self is per context', BOB, ['user'], 'READ', 'contexts/customers/subjects/bob', 'DENY', 'default_deny'],
  ['ids are literal, not prefixes', BOB, ['user'], 'READ', 'contexts/employees/subjects/bobby', 'DENY', 'default_deny'],
  ['admin searches own context', ALICE, ['admin'], 'SEARCH', 'contexts/employees/subjects', 'ALLOW', 'admin-manages-own-context'],
  ['admin creates in own context', ALICE, ['admin'], 'CREATE', 'contexts/employees/subjects', 'ALLOW', 'admin-manages-own-context'],
  ['admin deletes in own context', ALICE, ['admin'], 'DELETE', 'contexts/employees/subjects/bob', 'ALLOW', 'admin-manages-own-context'],
  ['admin lifts a lockout', ALICE, ['admin'], 'UPDATE', 'contexts/employees/subjects/bob/lockout', 'ALLOW', 'admin-manages-own-context'],
  ['admin reads itself (first allowing policy)', ALICE, ['admin'], 'READ', 'contexts/employees/subjects/alice', 'ALLOW', 'user-manages-self'],
  ['admin is limited to its own context', ALICE, ['admin'], 'READ', 'contexts/customers/subjects/carol', 'DENY', 'default_deny'],
  ['the role, not the name, makes an admin', ALICE, ['user'], 'DELETE', 'contexts/employees/subjects/bob', 'DENY', 'default_deny'],
  ['admin of customers manages customers', CAROL, ['admin'], 'SEARCH', 'contexts/customers/subjects', 'ALLOW', 'admin-manages-own-context'],
  ['admin does not reach config', ALICE, ['admin'], 'READ', 'config', 'DENY', 'config-is-system-only'],
  ['ANON registers where registration is on', ANON, [], 'CREATE', 'contexts/customers/subjects', 'ALLOW', 'anonymous-registers-in-customers'],
  ['INTERNAL registers where registration is on', INTERNAL, [], 'CREATE', 'contexts/customers/subjects', 'ALLOW', 'anonymous-registers-in-customers'],
  ['ANON does not register where it is off', ANON, [], 'CREATE', 'contexts/employees/subjects', 'DENY', 'default_deny'],
  ['ANON does not search', ANON, [], 'SEARCH', 'contexts/customers/subjects', 'DENY', 'default_deny'],
  ['ANON does not read', ANON, [], 'READ', 'contexts/customers/subjects/carol', 'DENY', 'default_deny'],
  ['SYSTEM does everything', SYSTEM, [], 'DELETE', 'contexts/customers/subjects/carol', 'ALLOW', 'system-does-everything'],
  ['SYSTEM reaches config', SYSTEM, [], 'UPDATE', 'config', 'ALLOW', 'system-does-everything'],
  ['SYSTEM reads a reserved id', SYSTEM, [], 'READ', 'contexts/employees/subjects/svcadmin', 'ALLOW', 'system-does-everything'],
  ['nobody updates the system id', SYSTEM, [], 'UPDATE', 'contexts/employees/subjects/svcadmin', 'DENY', 'reserved-ids-are-protected'],
  ['nobody deletes a reserved id', ALICE, ['admin'], 'DELETE', 'contexts/employees/subjects/root', 'DENY', 'reserved-ids-are-protected'],
  ['nor its password', SYSTEM, [], 'UPDATE', 'contexts/employees/subjects/root/password', 'DENY', 'reserved-ids-are-protected'],
  ['a reserved id with a dot is literal', SYSTEM, [], 'DELETE', 'contexts/employees/subjects/aXb', 'ALLOW', 'system-does-everything'],
  ['a reserved id with a dot is protected', SYSTEM, [], 'DELETE', 'contexts/employees/subjects/a.b', 'DENY', 'reserved-ids-are-protected'],
];

describe('default policies against the PDP', () => {
  test.each(ROWS)('%s', (_label, s, roles, operation, target, decision, policy) => {
    expect(pdp.decide({ session: s, roles, operation, target })).toEqual({ decision, policy });
  });

  test('a configured policy cannot open config to a USER', () => {
    const open = PolicyDecisionPoint.fromConfig({
      policies: [{ id: 'oops', effect: 'allow', sessionTypes: ['USER'], operations: ['READ'], targets: ['*'] }],
      reservedIds: [],
    });
    expect(open.decide({ session: BOB, roles: [], operation: 'READ', target: 'config' }).decision).toBe('DENY');
    expect(open.decide({ session: BOB, roles: [], operation: 'READ', target: 'contexts/x' }).decision).toBe('ALLOW');
  });

  test("each context's adminRoles make its admins, and only for principals of that context (SPEC 6)", () => {
    const renamed = PolicyDecisionPoint.fromConfig({
      policies: defaultPolicies([
        { ...contexts[0], adminRoles: ['superuser', 'operator'] },
        { ...contexts[1], adminRoles: ['admin'] },
        { id: 'partners', registration: { enabled: false, attributes: [] }, adminRoles: [] },
      ]),
      reservedIds: [],
    });
    const decide = (s: Session, roles: string[], target: string) => renamed.decide({ session: s, roles, operation: 'DELETE', target });
    const allowed = { decision: 'ALLOW', policy: 'admin-manages-own-context' };
    expect(decide(ALICE, ['superuser'], 'contexts/employees/subjects/bob')).toEqual(allowed);
    expect(decide(ALICE, ['operator'], 'contexts/employees/subjects/bob')).toEqual(allowed);
    expect(decide(ALICE, ['admin'], 'contexts/employees/subjects/bob').decision).toBe('DENY');
    expect(decide(CAROL, ['admin'], 'contexts/customers/subjects/dave')).toEqual(allowed);
    // Another context's admin role makes nobody an admin of its own context.
    expect(decide(CAROL, ['superuser'], 'contexts/customers/subjects/dave').decision).toBe('DENY');
    // A context without admin roles has no admins, whatever the roles are called.
    const partner = session('USER', 'partners/pat');
    for (const roles of [['admin'], ['superuser'], ['']]) expect(decide(partner, roles, 'contexts/partners/subjects/x').decision).toBe('DENY');
  });

  test('a variable is substituted as a literal segment, never as a pattern', () => {
    const odd = session('USER', 'employees/.');
    expect(pdp.decide({ session: odd, roles: [], operation: 'READ', target: 'contexts/employees/subjects/bob' }).decision).toBe('DENY');
  });
});

describe('default policies through HTTP', () => {
  let server: TestServer;
  let who: Record<Who, string>;
  beforeAll(async () => {
    server = await startTestServer();
    who = await sessionCookies(server);
  });
  afterAll(() => server.stop());

  const cases: Array<[Who, string, string, number]> = [
    ['BOB', 'GET', '/resources/contexts/employees/subjects/bob', 200],
    ['BOB', 'GET', '/resources/contexts/employees/subjects/alice', 401],
    ['ALICE', 'GET', '/resources/contexts/employees/subjects?search=b', 200],
    ['ANON', 'GET', '/resources/contexts/employees/subjects', 401],
    ['ANON', 'GET', '/resources/contexts', 200],
    ['SYSTEM', 'DELETE', '/contexts/employees/subjects/svcadmin', 401],
    ['ALICE', 'GET', '/config', 401],
    ['SYSTEM', 'GET', '/config', 200],
  ];
  test.each(cases)('%s %s %s → %i', async (w, method, path, status) => {
    const answer = await call(server.baseUrl + path, { method, headers: { cookie: who[w] } });
    expect(answer.status).toBe(status);
    if (status === 401) expect([answer.decision, answer.code]).toEqual(['DENY', 'access_denied']);
  });
});

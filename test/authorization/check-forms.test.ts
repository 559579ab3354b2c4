/**
 * The check's contract (SPEC section 6, seed 4.1) form by form, OPTIONS, AuthZEN, the config area,
 * and the bookkeeping every DENY leaves (audit line, metric).
 */
import type { ReloadResult } from '../../server/src/http/services';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { call, dumpStore, sessionCookies, type Who } from './helpers';

let server: TestServer;
let who: Record<Who, string>;
let base: string;
const subj = (id?: string, mount = '/resources') => `${base}${mount}/contexts/employees/subjects${id ? `/${id}` : ''}`;
const json = (cookie: string) => ({ cookie, 'content-type': 'application/json' });

beforeAll(async () => {
  server = await startTestServer();
  base = server.baseUrl;
  who = await sessionCookies(server);
});
afterAll(() => server.stop());

describe('answers', () => {
  test('ALLOW: 200, X-Svc-Decision, no WWW-Authenticate, the body shape; a USER sees only allowed/denied', async () => {
    const a = await call(`${subj('bob')}?isAllowed=READ`, { headers: { cookie: who.BOB } });
    expect([a.status, a.decision, a.authenticate]).toEqual([200, 'ALLOW', null]);
    expect(a.body).toEqual({ decision: 'ALLOW', operation: 'READ', resource: 'contexts/employees/subjects/bob', sessionType: 'USER', reason: 'allowed', exists: true });
  });

  test('DENY: 401 with access_denied, never authentication_required; no exists for who may not READ', async () => {
    const a = await call(`${subj('alice')}?isAllowed=READ`, { headers: { cookie: who.BOB } });
    expect([a.status, a.decision, a.authenticate]).toEqual([401, 'DENY', 'SvcSession realm="svc", error="access_denied"']);
    expect(a.body).toEqual({ decision: 'DENY', operation: 'READ', resource: 'contexts/employees/subjects/alice', sessionType: 'USER', reason: 'denied' });
  });

  test('admins and SYSTEM see the deciding policy; exists follows READ permission, not the operation', async () => {
    const ghost = await call(`${subj('ghost')}?isAllowed=DELETE`, { method: 'DELETE', headers: { cookie: who.ALICE } });
    expect(ghost.body).toMatchObject({ decision: 'ALLOW', reason: 'admin-manages-own-context', exists: false });
    const reserved = await call(`${base}/authz/employees/subjects/svcadmin`, { method: 'PUT', headers: { cookie: who.SYSTEM } });
    expect(reserved.body).toMatchObject({ decision: 'DENY', reason: 'reserved-ids-are-protected', exists: false });
    const self = await call(`${subj('bob')}?isAllowed=DELETE`, { method: 'DELETE', headers: { cookie: who.BOB } });
    expect(self.body).toMatchObject({ decision: 'DENY', exists: true }); // bob may READ himself
    const anon = await call(`${subj('bob')}?isAllowed=READ`, { headers: { cookie: who.ANON } });
    expect(anon.body).toEqual({ decision: 'DENY', operation: 'READ', resource: 'contexts/employees/subjects/bob', sessionType: 'ANON', reason: 'denied' });
  });

  test('form 1 is HEAD with X-Operation and no body; HEAD without it is an ordinary HEAD', async () => {
    const check = await fetch(subj('bob'), { method: 'HEAD', headers: { cookie: who.BOB, 'x-operation': 'UPDATE' } });
    expect([check.status, check.headers.get('x-svc-decision')]).toEqual([200, 'ALLOW']);
    const plain = await fetch(subj('bob'), { method: 'HEAD', headers: { cookie: who.BOB } });
    expect([plain.status, plain.headers.get('x-svc-decision'), plain.headers.get('etag')]).toEqual([200, null, expect.stringMatching(/^"\d+"$/)]);
  });

  test('isAllowed in any letter case, on both mounts', async () => {
    for (const url of [`${subj('bob')}?IsAlLoWeD=READ`, `${subj('bob', '')}?isallowed=READ`]) {
      expect((await call(url, { headers: { cookie: who.BOB } })).decision).toBe('ALLOW');
    }
  });

  test('a dead session gets session_expired on a DENY', async () => {
    const a = await call(`${subj('bob')}?isAllowed=READ`, { headers: { cookie: 'SVCSESSIONID=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } });
    expect([a.status, a.authenticate]).toEqual([401, 'SvcSession realm="svc", error="session_expired"']);
  });
});

describe('400 for a question that does not fit', () => {
  test.each([
    ['READ on the collection', `${'C'}?isAllowed=READ`, 'GET', undefined],
    ['CREATE on a subject', 'S?isAllowed=CREATE', 'GET', undefined],
    ['an unknown operation', 'S?isAllowed=PATCH', 'GET', undefined],
    ['a lower-case operation', 'S?isAllowed=read', 'GET', undefined],
    ['the wrong method (form 2)', 'S?isAllowed=READ', 'PUT', undefined],
    ['isAllowed twice', 'S?isAllowed=READ&ISALLOWED=READ', 'GET', undefined],
    ['X-Operation on a collection with a subject operation', 'C', 'HEAD', 'DELETE'],
  ])('%s', async (_label, url, method, operation) => {
    const target = url.replace(/^C/, subj()).replace(/^S/, subj('bob'));
    const a = await fetch(target, { method, headers: { cookie: who.ALICE, ...(operation ? { 'x-operation': operation } : {}) } });
    expect(a.status).toBe(400);
  });
});

describe('a check never performs the operation', () => {
  test('DELETE, PUT and POST with bodies, in forms 2 and 4, leave the store unchanged', async () => {
    const before = await dumpStore(server);
    const newbie = JSON.stringify({ subject: { uniqueId: 'newbie', attributes: { mail: 'newbie@example.com' } } });
    const change = JSON.stringify({ subject: { attributes: { givenName: 'Changed' } } });
    const answers = [
      await call(`${subj('bob')}?isAllowed=DELETE`, { method: 'DELETE', headers: json(who.ALICE) }),
      await call(`${subj('bob')}?isAllowed=UPDATE`, { method: 'PUT', headers: json(who.ALICE), body: change }),
      await call(`${subj()}?isAllowed=CREATE`, { method: 'POST', headers: json(who.ALICE), body: newbie }),
      await call(`${base}/authz/employees/subjects/bob`, { method: 'DELETE', headers: json(who.SYSTEM) }),
      await call(`${base}/authz/employees/subjects/bob`, { method: 'PUT', headers: json(who.SYSTEM), body: change }),
      await call(`${base}/authz/employees/subjects`, { method: 'POST', headers: json(who.SYSTEM), body: newbie }),
    ];
    expect(answers.map((a) => a.decision)).toEqual(Array(6).fill('ALLOW'));
    expect(await dumpStore(server)).toBe(before);
    // bob's session survives: a DELETE that had been performed would have ended it
    expect((await call(`${subj('bob')}`, { headers: { cookie: who.BOB } })).status).toBe(200);
  });
});

describe('OPTIONS', () => {
  const allow = async (url: string, w: Who) => {
    const res = await fetch(url, { method: 'OPTIONS', headers: { cookie: who[w], accept: 'application/json' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { operations: string[] };
    return { allow: (res.headers.get('allow') ?? '').split(', ').sort(), operations: body.operations.sort() };
  };
  test('lists the methods this principal may use, OPTIONS always, HEAD with GET', async () => {
    expect(await allow(subj('bob'), 'BOB')).toEqual({ allow: ['GET', 'HEAD', 'OPTIONS', 'PUT'], operations: ['READ', 'UPDATE'] });
    expect(await allow(subj('alice'), 'BOB')).toEqual({ allow: ['OPTIONS'], operations: [] });
    expect(await allow(subj(), 'ALICE')).toEqual({ allow: ['GET', 'HEAD', 'OPTIONS', 'POST'], operations: ['CREATE', 'SEARCH'] });
    expect(await allow(subj('svcadmin'), 'SYSTEM')).toEqual({ allow: ['GET', 'HEAD', 'OPTIONS'], operations: ['READ'] });
    expect(await allow(`${base}/resources/contexts/customers/subjects`, 'ANON')).toEqual({ allow: ['OPTIONS', 'POST'], operations: ['CREATE'] });
  });
});

describe('AuthZEN', () => {
  const evaluation = (w: Who, body: unknown, batch = false) =>
    call(`${base}/access/v1/${batch ? 'evaluations' : 'evaluation'}`, { method: 'POST', headers: json(who[w]), body: JSON.stringify(body) });
  const subject = (id: string) => ({ type: 'subject', id: `employees/${id}` });

  test('single: the current principal, or another one only for SYSTEM', async () => {
    expect((await evaluation('BOB', { action: { name: 'UPDATE' }, resource: subject('bob') })).body).toEqual({ decision: true, context: { reason: 'allowed' } });
    expect((await evaluation('BOB', { action: { name: 'READ' }, resource: subject('alice') })).body).toEqual({ decision: false, context: { reason: 'denied' } });
    const asBob = { subject: { type: 'user', id: 'employees/bob' }, action: { name: 'READ' } };
    expect((await evaluation('SYSTEM', { ...asBob, resource: subject('alice') })).body).toEqual({ decision: false, context: { reason: 'default_deny' } });
    expect((await evaluation('SYSTEM', { ...asBob, resource: subject('bob') })).body).toEqual({ decision: true, context: { reason: 'user-manages-self' } });
    expect((await evaluation('BOB', { ...asBob, resource: subject('bob') })).body?.decision).toBe(true); // naming oneself is fine
    const foreign = await evaluation('BOB', { subject: { type: 'user', id: 'employees/alice' }, action: { name: 'READ' }, resource: subject('alice') });
    expect([foreign.status, foreign.code]).toEqual([401, 'access_denied']);
    expect((await evaluation('ANON', { action: { name: 'CREATE' }, resource: { type: 'subjects', id: 'customers' } })).body?.decision).toBe(true);
  });

  test('single: malformed questions are 400, unknown contexts 404', async () => {
    expect((await evaluation('BOB', { action: { name: 'FLY' }, resource: subject('bob') })).status).toBe(400);
    expect((await evaluation('BOB', { action: { name: 'SEARCH' }, resource: subject('bob') })).code).toBe('invalid_operation');
    expect((await evaluation('BOB', { action: { name: 'READ' }, resource: { type: 'subject', id: 'employees/../x' } })).status).toBe(400);
    expect((await evaluation('BOB', { action: { name: 'READ' }, resource: { type: 'subject', id: 'nowhere/bob' } })).status).toBe(404);
  });

  test('batch: request order, top-level defaults, per-item errors', async () => {
    const a = await evaluation('ALICE', {
      action: { name: 'READ' },
      evaluations: [
        { resource: subject('bob') },
        { resource: subject('svcadmin'), action: { name: 'DELETE' } },
        { resource: subject('bob'), action: { name: 'CREATE' } },
        { resource: { type: 'subjects', id: 'nowhere' }, action: { name: 'SEARCH' } },
        { subject: { type: 'user', id: 'employees/bob' }, resource: subject('bob') },
      ],
    }, true);
    expect(a.status).toBe(200);
    expect(a.body).toEqual({
      evaluations: [
        { decision: true, context: { reason: 'admin-manages-own-context' } },
        { decision: false, context: { reason: 'reserved-ids-are-protected' } },
        { decision: false, context: { error: { status: 400, code: 'invalid_operation', detail: expect.any(String) } } },
        { decision: false, context: { error: { status: 404, code: 'not_found', detail: expect.any(String) } } },
        { decision: false, context: { error: { status: 401, code: 'access_denied', detail: expect.any(String) } } },
      ],
    });
  });

  test('subject.password and subject.lockout: UPDATE of …/password and …/lockout', async () => {
    const part = (type: string, id: string, name = 'UPDATE') => ({ action: { name }, resource: { type, id: `employees/${id}` } });
    const a = await evaluation('BOB', {
      evaluations: [part('subject.password', 'bob'), part('subject.password', 'alice'), part('subject.lockout', 'bob'), part('subject.lockout', 'bob', 'DELETE')],
    }, true);
    expect(a.body?.evaluations).toEqual([
      { decision: true, context: { reason: 'allowed' } },
      { decision: false, context: { reason: 'denied' } },
      { decision: false, context: { reason: 'denied' } },
      { decision: false, context: { error: { status: 400, code: 'invalid_operation', detail: expect.any(String) } } },
    ]);
    const lift = await evaluation('ALICE', part('subject.lockout', 'bob'));
    expect(lift.body).toEqual({ decision: true, context: { reason: 'admin-manages-own-context' } });
  });

  test('subject.lockout and subject.events: READ of …/lockout and …/events (the User Admin asks them beside its buttons); events take READ only', async () => {
    const part = (type: string, id: string, name = 'READ') => ({ action: { name }, resource: { type, id: `employees/${id}` } });
    const asAlice = await evaluation('ALICE', { evaluations: [part('subject.lockout', 'bob'), part('subject.events', 'bob'), part('subject.events', 'bob', 'UPDATE')] }, true);
    expect(asAlice.body?.evaluations).toEqual([
      { decision: true, context: { reason: 'admin-manages-own-context' } },
      { decision: true, context: { reason: 'admin-manages-own-context' } },
      { decision: false, context: { error: { status: 400, code: 'invalid_operation', detail: expect.any(String) } } },
    ]);
    // bob reads his own events (user-reads-own-events), not his lockout, nor alice's events.
    const asBob = await evaluation('BOB', { evaluations: [part('subject.events', 'bob'), part('subject.lockout', 'bob'), part('subject.events', 'alice')] }, true);
    expect(asBob.body?.evaluations).toEqual([
      { decision: true, context: { reason: 'allowed' } },
      { decision: false, context: { reason: 'denied' } },
      { decision: false, context: { reason: 'denied' } },
    ]);
  });

  test('batch: deny_on_first_deny stops; the size is bounded', async () => {
    const items = ['bob', 'alice', 'bob'].map((id) => ({ resource: subject(id) }));
    const stopped = await evaluation('BOB', { action: { name: 'READ' }, options: { evaluations_semantic: 'deny_on_first_deny' }, evaluations: items }, true);
    expect((stopped.body?.evaluations as unknown[]).length).toBe(2);
    const many = Array.from({ length: 501 }, () => ({ resource: subject('bob') }));
    expect((await evaluation('BOB', { action: { name: 'READ' }, evaluations: many }, true)).status).toBe(400);
    const huge = { action: { name: 'READ' }, resource: subject('bob'), padding: 'x'.repeat(300_000) };
    expect((await evaluation('BOB', huge)).status).toBe(413);
  });
});

describe('config area', () => {
  test('only SYSTEM, on every path under it', async () => {
    for (const w of ['ANON', 'BOB', 'ALICE'] as const) {
      for (const [method, path] of [['GET', '/config'], ['POST', '/config/reload'], ['GET', '/config/sessions']]) {
        const a = await call(base + path, { method, headers: { cookie: who[w] } });
        expect([w, path, a.status, a.decision]).toEqual([w, path, 401, 'DENY']);
      }
    }
    expect((await call(`${base}/config/sessions`, { headers: { cookie: who.SYSTEM } })).status).toBe(404);
  });

  test('GET lists the configuration with secrets hidden', async () => {
    const res = await fetch(`${base}/config`, { headers: { cookie: who.SYSTEM, accept: 'application/json' } });
    const text = await res.text();
    expect(res.status).toBe(200);
    for (const secret of Object.values(TEST_CREDENTIALS.clients)) expect(text).not.toContain(secret);
    expect(text).not.toContain('$argon2id$');
    const { config } = JSON.parse(text) as { config: Record<string, Array<{ id: string; hasSecret?: boolean }>> };
    expect(config.clients.find((c) => c.id === 'svc-api')?.hasSecret).toBe(true);
    expect(config.contexts.map((c) => c.id)).toEqual(['employees', 'customers']);
    expect(config.policies.length).toBeGreaterThan(0);
    expect(config.authenticators.length).toBeGreaterThan(0);
  });

  test('reload: 409 without a configuration file, else the server reload', async () => {
    const none = await call(`${base}/config/reload`, { method: 'POST', headers: { cookie: who.SYSTEM } });
    expect([none.status, none.code]).toEqual([409, 'reload_unavailable']);
    let answer: ReloadResult = { ok: false, problems: ['clients[0]: bad'] };
    const withFile = await startTestServer({ reload: () => answer });
    try {
      const system = (await sessionCookies(withFile)).SYSTEM;
      const reload = `${withFile.baseUrl}/config/reload`;
      const refused = await call(reload, { method: 'POST', headers: { cookie: system } });
      expect([refused.status, refused.body?.errors]).toEqual([400, [{ path: 'config', message: 'clients[0]: bad' }]]);
      answer = { ok: true };
      expect((await call(reload, { method: 'POST', headers: { cookie: system } })).status).toBe(200);
    } finally {
      await withFile.stop();
    }
  });
});

describe('bookkeeping and cost', () => {
  test('every DENY is an audit line and a metric; OPTIONS discovery is neither', async () => {
    const record = jest.spyOn(server.core.audit, 'record');
    try {
      await call(`${subj('alice')}?isAllowed=DELETE`, { method: 'DELETE', headers: { cookie: who.BOB } });
      await call(subj('alice'), { method: 'DELETE', headers: { cookie: who.BOB } });
      await fetch(subj('alice'), { method: 'OPTIONS', headers: { cookie: who.BOB } });
      const denials = record.mock.calls.map(([r]) => r).filter((r) => r.event === 'access_denied');
      expect(denials).toEqual([
        expect.objectContaining({ outcome: 'failure', operation: 'DELETE', target: 'contexts/employees/subjects/alice', principal: 'employees/bob', reason: 'default_deny' }),
        expect.objectContaining({ operation: 'DELETE', target: 'contexts/employees/subjects/alice' }),
      ]);
    } finally {
      record.mockRestore();
    }
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/svc_authz_decisions_total\{decision="DENY",operation="DELETE"\} [1-9]/);
    expect(metrics).toMatch(/svc_audit_events_total\{event="access_denied",outcome="failure",reason="default_deny"\} [1-9]/);
  });

  test('one roles read per request, and none beyond the decision for HEAD', async () => {
    const rolesOf = jest.spyOn(server.core, 'rolesOf');
    const get = jest.spyOn(server.core.subjects.context('employees').store, 'get');
    try {
      await call(`${subj('bob')}?isAllowed=DELETE`, { method: 'DELETE', headers: { cookie: who.ALICE } });
      expect(rolesOf).toHaveBeenCalledTimes(1);
      rolesOf.mockClear();
      get.mockClear();
      await fetch(subj('bob'), { method: 'HEAD', headers: { cookie: who.ALICE, 'x-operation': 'DELETE' } });
      expect(rolesOf).toHaveBeenCalledTimes(1);
      // Alice's roles come from the roles cache the first check filled, and HEAD makes no `exists`
      // lookup for a body that is not sent: the store is not read at all.
      expect(get).not.toHaveBeenCalled();
    } finally {
      rolesOf.mockRestore();
      get.mockRestore();
    }
  });
});

describe('authz.denyStatus 403', () => {
  let strict: TestServer;
  let cookies: Record<Who, string>;
  beforeAll(async () => {
    strict = await startTestServer({
      configure: (doc) => {
        doc.global = { ...(doc.global as Record<string, unknown> | undefined), 'authz.denyStatus': 403 };
      },
    });
    cookies = await sessionCookies(strict);
  });
  afterAll(() => strict.stop());

  test('checks and real requests are refused with 403, still access_denied', async () => {
    const url = `${strict.baseUrl}/resources/contexts/employees/subjects/alice`;
    const check = await call(`${url}?isAllowed=READ`, { headers: { cookie: cookies.BOB } });
    const real = await call(url, { headers: { cookie: cookies.BOB } });
    expect([check.status, check.decision, check.authenticate]).toEqual([403, 'DENY', 'SvcSession realm="svc", error="access_denied"']);
    expect([real.status, real.decision, real.code]).toEqual([403, 'DENY', 'access_denied']);
  });
});

describe('the check on a password and a lockout (SPEC 6: both are UPDATEs of their targets)', () => {
  const lockout = (id: string) => `${subj(id)}/lockout`;
  const password = (id: string) => `${subj(id)}/password`;

  test('forms 1, 2 and 3 on …/lockout: an admin may lift, bob may not; nothing is performed', async () => {
    const before = await dumpStore(server);
    const form3 = await call(`${lockout('bob')}?isAllowed=UPDATE`, { headers: { cookie: who.ALICE } });
    expect(form3.body).toMatchObject({ decision: 'ALLOW', operation: 'UPDATE', resource: 'contexts/employees/subjects/bob/lockout' });
    const form2 = await call(`${lockout('bob')}?isAllowed=UPDATE`, { method: 'DELETE', headers: { cookie: who.ALICE } });
    expect([form2.status, form2.decision]).toEqual([200, 'ALLOW']);
    const form1 = await fetch(lockout('bob'), { method: 'HEAD', headers: { cookie: who.BOB, 'x-operation': 'UPDATE' } });
    expect([form1.status, form1.headers.get('x-svc-decision')]).toEqual([401, 'DENY']);
    expect(await dumpStore(server)).toBe(before);
  });

  test('…/password: bob may change his own, not alice\'s; form 2 uses PUT; other operations do not fit', async () => {
    expect((await call(`${password('bob')}?isAllowed=UPDATE`, { method: 'PUT', headers: { cookie: who.BOB } })).decision).toBe('ALLOW');
    expect((await call(`${password('alice')}?isAllowed=UPDATE`, { headers: { cookie: who.BOB } })).decision).toBe('DENY');
    expect((await call(`${lockout('bob')}?isAllowed=UPDATE`, { method: 'PUT', headers: { cookie: who.ALICE } })).code).toBe('invalid_operation');
    expect((await call(`${password('bob')}?isAllowed=DELETE`, { method: 'DELETE', headers: { cookie: who.BOB } })).code).toBe('invalid_operation');
  });

  test('exists follows READ of the subject itself, not of its …/password or …/lockout target', async () => {
    expect((await call(`${lockout('bob')}?isAllowed=UPDATE`, { headers: { cookie: who.BOB } })).body).toMatchObject({ decision: 'DENY', exists: true });
    expect((await call(`${password('bob')}?isAllowed=UPDATE`, { headers: { cookie: who.BOB } })).body).toMatchObject({ decision: 'ALLOW', exists: true });
    expect((await call(`${password('alice')}?isAllowed=UPDATE`, { headers: { cookie: who.BOB } })).body).not.toHaveProperty('exists');
  });
});

test('form 2 with the wrong method names the right one once (READ: GET, not "GET or GET")', async () => {
  const a = await fetch(`${subj('bob')}?isAllowed=READ`, { method: 'PUT', headers: { cookie: who.ALICE, accept: 'application/json' } });
  expect(((await a.json()) as { detail: string }).detail).toBe('READ is checked with GET, not PUT');
});

test('the home page asks whether to link the config area without auditing a DENY', async () => {
  const record = jest.spyOn(server.core.audit, 'record');
  try {
    const home = await fetch(`${base}/`, { headers: { cookie: who.BOB, accept: 'text/html' } });
    expect(home.status).toBe(200);
    expect(record.mock.calls.filter(([r]) => r.event === 'access_denied')).toEqual([]);
  } finally {
    record.mockRestore();
  }
});

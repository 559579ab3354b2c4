/**
 * The client library against a real core server: the seed's three connection kinds, the five
 * operations in XML, contexts, the check, logout and the transparent re-login.
 */
import { Connection, SvcAccessDeniedError, SvcClientError, SvcConflictError, SvcLoginError, SvcNotFoundError, type ConnectionOptions } from '../../client/src';
import { HttpTransport } from '../../client/src/http-transport';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { endSessionsOf } from '../helpers/sessions';

let server: TestServer;
const open: Connection[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await Promise.allSettled(open.map((c) => c.close()));
  await server.stop();
});

const options = (clientId?: string, secret?: string): ConnectionOptions => ({ config: { baseUrl: server.baseUrl, clientId, secret } });
async function track(promise: Promise<Connection>): Promise<Connection> {
  const conn = await promise;
  open.push(conn);
  return conn;
}
async function successfulLogins(): Promise<number> {
  const metric = await server.core.metrics.logins.get();
  return metric.values.filter((v) => v.labels.outcome === 'success').reduce((sum, v) => sum + v.value, 0);
}
const asAlice = () => track(Connection.open({ kind: 'password', user: 'alice', password: TEST_CREDENTIALS.users.alice }, options('svc-api', TEST_CREDENTIALS.clients['svc-api'])));
const asBob = () => track(Connection.open({ kind: 'password', user: 'bob', password: TEST_CREDENTIALS.users.bob }, options('svc-web')));

describe('connection kinds', () => {
  it('anonymous without a client: the global default client', async () => {
    const conn = await track(Connection.open({ kind: 'anonymous' }, options()));
    expect(await conn.session()).toMatchObject({ type: 'ANON', clientId: '', principal: null, level: 0 });
    expect(conn.contextId).toBe('employees');
  });

  it('anonymous through the client anon', async () => {
    const conn = await track(Connection.open({ kind: 'anonymous' }, options('anon')));
    expect(await conn.session()).toMatchObject({ type: 'ANON', principal: null, level: 0 });
  });

  it('client principal: portal-gateway vouches for bob with its secret, no password', async () => {
    const conn = await track(Connection.open({ kind: 'principal', user: 'employees/bob' }, options('portal-gateway', TEST_CREDENTIALS.clients['portal-gateway'])));
    expect(await conn.session()).toEqual(expect.objectContaining({ type: 'USER', clientId: 'portal-gateway', principal: { uniqueId: 'bob', contextId: 'employees' }, level: 1 }));
  });

  it('user and password through svc-api (sealed) and svc-web (no secret)', async () => {
    const alice = await asAlice();
    expect(await alice.session()).toEqual(expect.objectContaining({ type: 'USER', clientId: 'svc-api', principal: { uniqueId: 'alice', contextId: 'employees' }, level: 2 }));
    const bob = await asBob();
    expect(await bob.session()).toEqual(expect.objectContaining({ type: 'USER', clientId: 'svc-web', principal: { uniqueId: 'bob', contextId: 'employees' }, level: 2 }));
  });

  it('a wrong secret is a typed invalid_client, a wrong password login_failed', async () => {
    const wrongSecret = 'd3Jvbmctc2VjcmV0LWZvci1zdmMtYXBpLXRlc3RzLW9ubHktMDE';
    const bad = Connection.open({ kind: 'password', user: 'alice', password: TEST_CREDENTIALS.users.alice }, options('svc-api', wrongSecret));
    await expect(bad).rejects.toBeInstanceOf(SvcLoginError);
    await expect(bad).rejects.toMatchObject({ status: 401, code: 'invalid_client' });
    const badPassword = Connection.open({ kind: 'password', user: 'alice', password: 'not-her-password' }, options('svc-web'));
    await expect(badPassword).rejects.toMatchObject({ status: 401, code: 'login_failed', problem: expect.objectContaining({ code: 'login_failed', status: 401 }) });
  });

  it('refuses caller mistakes before any request', async () => {
    await expect(Connection.open({ kind: 'principal', user: 'employees/bob' }, options('svc-web'))).rejects.toThrow(TypeError);
    // A client principal names its context: a bare uniqueId (or a mail) is a caller mistake.
    const portal = options('portal-gateway', TEST_CREDENTIALS.clients['portal-gateway']);
    for (const user of ['bob', 'bob@example.com', 'employees/', '/bob', 'employees/bob/x']) {
      await expect(Connection.open({ kind: 'principal', user }, portal)).rejects.toThrow(/contextId\/uniqueId/);
    }
    await expect(Connection.open({ kind: 'anonymous' }, { config: { baseUrl: 'ftp://x' } })).rejects.toThrow(/http or https/);
  });
});

describe("issue 29's reads as alice, XML on the wire", () => {
  it('search sorted, every match as CSV in chunks, and bob\'s events newest first (null members as null)', async () => {
    const alice = await asAlice();
    expect((await alice.search({ sort: 'mail', order: 'desc' })).results.map((s) => s.uniqueId).slice(-2)).toEqual(['bob', 'alice']);
    let csv = '';
    for await (const chunk of alice.searchCsv({ sort: 'mail', filter: 'uniqueId eq "bob" or uniqueId eq "alice"' })) csv += chunk;
    expect(csv.split('\r\n').map((line) => line.split(',')[0])).toEqual(['uniqueId', 'alice', 'bob', '']);
    await expect(alice.searchCsv({ sort: 'roles' }).next()).rejects.toMatchObject({ code: 'invalid_request', status: 400 });
    await asBob();
    const events = await alice.events('bob', { quantity: 1 });
    expect(events.total).toBeGreaterThanOrEqual(1);
    expect(events.events).toEqual([expect.objectContaining({ type: 'login', detail: expect.stringMatching(/^success/), principal: 'employees/bob' })]);
    await expect(alice.events('nobody')).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('READ with include, XML on the wire (issue 28)', () => {
  it('alice reads bob with his lock and events typed as their own calls give them; bob himself gets his events, not his lock', async () => {
    const alice = await asAlice();
    const bob = await asBob();
    const read = await alice.get('bob', { include: ['lockout', 'events', 'otp'] });
    expect(read).toMatchObject({ uniqueId: 'bob', etag: expect.stringMatching(/^"\d+"$/), otp: { state: 'none', recoveryCodesLeft: 0 } });
    expect(read.lockout).toEqual({ locked: false, lockedUntil: null, failures: expect.any(Number) });
    expect(read.events).toEqual(await alice.events('bob', { offset: 0, quantity: 20 }));
    expect(read.events!.total).toBeGreaterThanOrEqual(1);
    expect(read.attributes).toEqual((await alice.get('bob')).attributes);
    const own = await bob.get('bob', { include: ['lockout', 'events'] });
    expect(own.lockout).toBeUndefined();
    expect(own.events).toEqual(await bob.events('bob', { offset: 0, quantity: 20 }));
    expect(Object.keys(await bob.get('bob', { include: ['lockout'] })).sort()).toEqual(['attributes', 'etag', 'uniqueId']);
  });
});

describe('the five operations as alice (admin in employees), XML on the wire', () => {
  it('CREATE, READ, UPDATE, SEARCH, DELETE', async () => {
    const conn = await asAlice();
    const created = await conn.create({ uniqueId: 'carol', attributes: { mail: 'carol@example.com', givenName: 'Carol', familyName: 'Smith', roles: ['user', 'auditor'] } });
    expect(created.uniqueId).toBe('carol');
    expect(created.attributes).toMatchObject({ mail: 'carol@example.com', roles: ['user', 'auditor'] });
    expect(created.etag).toMatch(/^"\d+"$/);

    const read = await conn.get('carol');
    expect(read.attributes.givenName).toBe('Carol');

    const updated = await conn.update('carol', { familyName: 'Jones', givenName: null }, { ifMatch: read.etag });
    expect(updated.attributes.familyName).toBe('Jones');
    expect(updated.attributes.givenName).toBeUndefined();
    await expect(conn.update('carol', { familyName: 'Late' }, { ifMatch: read.etag })).rejects.toBeInstanceOf(SvcConflictError);

    const page = await conn.search({ search: 'carol' });
    expect(page).toMatchObject({ offset: 0, total: 1 });
    expect(typeof page.quantity).toBe('number');
    expect(page.results.map((s) => s.uniqueId)).toEqual(['carol']);
    const empty = await conn.search({ filter: 'mail eq "nobody@example.com"' });
    expect(empty).toMatchObject({ results: [], total: 0 });
    const paged = await conn.search({ quantity: 1, offset: 1 });
    expect(paged.results).toHaveLength(1);
    expect(paged.total).toBeGreaterThanOrEqual(3);

    await expect(conn.create({ uniqueId: 'carol', attributes: { mail: 'other@example.com' } })).rejects.toMatchObject({ status: 409, code: 'conflict' });
    await conn.delete('carol');
    const missing = conn.get('carol');
    await expect(missing).rejects.toBeInstanceOf(SvcNotFoundError);
    await expect(missing).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('invalid input is a typed 400 with the field errors', async () => {
    const conn = await asAlice();
    const error = await conn.search({ filter: 'mail eq' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcClientError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_filter' });
  });
});

describe('contexts', () => {
  it('lists the client\'s contexts, starts in the default one and switches', async () => {
    const conn = await asAlice();
    expect(await conn.contexts()).toEqual([{ id: 'employees', default: true }, { id: 'customers', default: false }]);
    expect(conn.contextId).toBe('employees');
    expect(conn.availableContexts).toEqual(['employees', 'customers']);
    conn.contextId = 'customers';
    // alice administers employees only: in customers the policy says DENY
    expect(await conn.isAllowed('SEARCH')).toBe(false);
    await expect(conn.search()).rejects.toBeInstanceOf(SvcAccessDeniedError);
    conn.contextId = 'employees';
    expect(await conn.isAllowed('SEARCH')).toBe(true);
    expect(() => {
      conn.contextId = 'nowhere';
    }).toThrow(TypeError);
  });

  it('opens in the context asked for', async () => {
    const conn = await track(Connection.open({ kind: 'anonymous' }, { ...options('anon'), contextId: 'customers' }));
    expect(conn.contextId).toBe('customers');
    // registration is on in customers: an anonymous session may CREATE there
    expect(await conn.isAllowed('CREATE')).toBe(true);
  });
});

describe('the check', () => {
  it('bob may READ himself and may not DELETE alice', async () => {
    const bob = await asBob();
    expect(await bob.isAllowed('READ', 'bob')).toBe(true);
    expect(await bob.isAllowed('DELETE', 'alice')).toBe(false);
    const decision = await bob.check('READ', 'bob');
    expect(decision).toEqual({ allowed: true, decision: 'ALLOW', operation: 'READ', resource: 'contexts/employees/subjects/bob', sessionType: 'USER', reason: 'allowed', exists: true });
    expect(await bob.check('DELETE', 'alice')).toMatchObject({ allowed: false, decision: 'DENY', reason: 'denied' });
  });

  it('an operation that does not fit the path is a typed 400', async () => {
    const bob = await asBob();
    await expect(bob.check('READ')).rejects.toMatchObject({ status: 400, code: 'invalid_operation' });
  });

  it('access_denied never logs in again', async () => {
    const bob = await asBob();
    const before = (await bob.session()).uniqueId;
    await expect(bob.delete('alice')).rejects.toMatchObject({ code: 'access_denied' });
    expect((await bob.session()).uniqueId).toBe(before);
  });
});

describe('session end', () => {
  it('close() logs out: the old cookie then meets session_expired', async () => {
    const conn = await asAlice();
    const { cookie } = conn.exportSession();
    await conn.close();
    const res = await fetch(`${server.baseUrl}/resources/contexts/employees/subjects/bob`, { headers: { cookie: `SVCSESSIONID=${cookie}`, accept: 'application/json' } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('session_expired');
    await conn.close(); // twice is harmless
  });

  it('a session ended on the server is re-opened transparently, once for concurrent requests', async () => {
    const conn = await asAlice();
    const first = await conn.session();
    await endSessionsOf(server, 'employees', 'alice');
    const logins = await successfulLogins();
    const [bob, session, allowed, ...more] = await Promise.all([conn.get('bob'), conn.session(), conn.isAllowed('DELETE', 'bob'), ...Array.from({ length: 6 }, () => conn.search({ quantity: 1 }))]);
    expect(await successfulLogins()).toBe(logins + 1);
    expect(more.every((page) => page.results.length === 1)).toBe(true);
    expect(bob.uniqueId).toBe('bob');
    expect(session).toMatchObject({ type: 'USER', principal: { uniqueId: 'alice', contextId: 'employees' } });
    expect(session.uniqueId).not.toBe(first.uniqueId);
    expect(allowed).toBe(true);
    expect((await conn.session()).uniqueId).toBe(session.uniqueId);
  });
});

describe('idle timeout with a fake clock', () => {
  let clock = Date.now();
  let timed: TestServer;
  beforeAll(async () => {
    timed = await startTestServer({ now: () => clock });
  });
  afterAll(() => timed.stop());

  it('a session past the idle timeout is re-opened by the next request', async () => {
    // svc-web has no secret: a sealed clientcred would carry the real time, which the fake clock rejects as stale
    const conn = await Connection.open({ kind: 'password', user: 'bob', password: TEST_CREDENTIALS.users.bob }, { config: { baseUrl: timed.baseUrl, clientId: 'svc-web' } });
    try {
      const before = await conn.session();
      clock += 31 * 60 * 1000; // past session.idle (30 min)
      expect((await conn.get('bob')).attributes.mail).toBe('bob@example.com');
      const after = await conn.session();
      expect(after).toMatchObject({ type: 'USER', level: 2, principal: { uniqueId: 'bob' } });
      expect(after.uniqueId).not.toBe(before.uniqueId);
    } finally {
      await conn.close();
    }
  });
});

describe('the wire', () => {
  it('asks for and receives application/xml', async () => {
    const transport = new HttpTransport(server.baseUrl);
    try {
      const res = await transport.send({ method: 'GET', path: '/resources/session' });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/xml/);
      expect(res.document).toMatchObject({ session: { type: 'ANON', level: '0', principal: null } });
      expect(transport.sessionCookie).toBeDefined();
    } finally {
      await transport.close();
    }
  });
});

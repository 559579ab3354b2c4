import { startTestServer, type TestServer } from '../helpers/core-server';
import { bodyOf } from '../helpers/json';
import { sessionCookie } from '../helpers/sessions';

let server: TestServer;
let admin: string;
let base: string;

const subjects = () => `${base}/resources/contexts/employees/subjects`;
const json = (cookie: string, body?: unknown, extra: Record<string, string> = {}) => ({
  headers: { cookie, 'content-type': 'application/json', accept: 'application/json', ...extra },
  body: body === undefined ? undefined : JSON.stringify(body),
});
const xml = (cookie: string, body?: string, extra: Record<string, string> = {}) => ({
  headers: { cookie, 'content-type': 'application/xml', accept: 'application/xml', ...extra },
  body,
});

/** Everything a store holds for the context, to prove that a refused request changed nothing. */
async function dump(): Promise<string> {
  const page = await server.core.subjects.context('employees').store.search('employees', { offset: 0, quantity: 10_000 });
  return JSON.stringify(page.results);
}

beforeAll(async () => {
  server = await startTestServer();
  base = server.baseUrl;
  admin = await sessionCookie(server, 'USER', { uniqueId: 'alice', contextId: 'employees' });
});
afterAll(() => server.stop());

describe('CRUDS in JSON', () => {
  test('create, read, update, search, delete', async () => {
    const created = await fetch(subjects(), {
      method: 'POST',
      ...json(admin, { subject: { uniqueId: 'carol', attributes: { mail: 'carol@example.com', givenName: 'Carol', password: 'Carol-pass-99' } } }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/svc/resources/contexts/employees/subjects/carol');
    const body = await bodyOf(created);
    expect(body).toEqual({ subject: { uniqueId: 'carol', attributes: { mail: 'carol@example.com', givenName: 'Carol', roles: ['user'] } } });

    const read = await fetch(`${subjects()}/carol`, json(admin));
    expect(read.status).toBe(200);
    const etag = read.headers.get('etag')!;
    expect(etag).toMatch(/^"\d+"$/);
    expect((await bodyOf(read)).subject.attributes.password).toBeUndefined();

    const stale = await fetch(`${subjects()}/carol`, { method: 'PUT', ...json(admin, { subject: { attributes: { familyName: 'C' } } }, { 'if-match': '"999"' }) });
    expect(stale.status).toBe(412);

    const updated = await fetch(`${subjects()}/carol`, {
      method: 'PUT',
      ...json(admin, { subject: { attributes: { familyName: 'Clark', givenName: null } } }, { 'if-match': etag }),
    });
    expect(updated.status).toBe(200);
    expect((await bodyOf(updated)).subject.attributes).toEqual({ mail: 'carol@example.com', familyName: 'Clark', roles: ['user'] });

    const search = await fetch(`${subjects()}?filter=${encodeURIComponent('mail eq "CAROL@example.com"')}`, json(admin));
    expect(await bodyOf(search)).toEqual({ results: [{ uniqueId: 'carol', attributes: { mail: 'carol@example.com', familyName: 'Clark', roles: ['user'] } }], offset: 0, quantity: 25, total: 1 });

    // SCIM's ordering operators on a flat attribute; its value paths are SCIM's, refused here by name.
    const ordered = await bodyOf(await fetch(`${subjects()}?filter=${encodeURIComponent('mail GE "carol@" and mail lt "CAROM"')}`, json(admin)));
    expect(ordered.results.map((s: { uniqueId: string }) => s.uniqueId)).toEqual(['carol']);
    const valuePath = await fetch(`${subjects()}?filter=${encodeURIComponent('emails[type eq "work"]')}`, json(admin));
    expect(valuePath.status).toBe(400);
    expect(await bodyOf(valuePath)).toMatchObject({ code: 'invalid_filter', detail: 'value paths are not supported ("emails[…]") (at position 6)', position: 6 });

    const text = await bodyOf(await fetch(`${subjects()}?search=cl`, json(admin)));
    expect(text.results.map((s: { uniqueId: string }) => s.uniqueId)).toEqual(['carol']);

    const deleted = await fetch(`${subjects()}/carol`, { method: 'DELETE', ...json(admin) });
    expect(deleted.status).toBe(204);
    expect((await fetch(`${subjects()}/carol`, json(admin))).status).toBe(404);
  });

  test('search pages in uniqueId order with offset, quantity and total', async () => {
    const page = await bodyOf(await fetch(`${subjects()}?offset=1&quantity=1`, json(admin)));
    expect(page).toMatchObject({ offset: 1, quantity: 1, total: 2 });
    expect(page.results.map((s: { uniqueId: string }) => s.uniqueId)).toEqual(['bob']);
    const empty = await fetch(`${subjects()}?search=nobody-here`, json(admin));
    expect(empty.status).toBe(200);
    expect((await bodyOf(empty)).total).toBe(0);
  });

  test('search sorts by uniqueId or a search attribute, asc or desc; another sort or order is 400 invalid_request naming it', async () => {
    const order = async (query: string) => (await bodyOf(await fetch(`${subjects()}?${query}`, json(admin)))).results.map((s: { uniqueId: string }) => s.uniqueId);
    expect(await order('sort=mail')).toEqual(['alice', 'bob']);
    expect(await order('sort=mail&order=desc')).toEqual(['bob', 'alice']);
    expect(await order('order=desc')).toEqual(['bob', 'alice']);
    expect(await order('sort=uniqueId&order=asc&quantity=1&offset=1')).toEqual(['bob']);
    for (const [query, path] of [['sort=roles', 'sort'], ['sort=password', 'sort'], ['sort=mail&order=up', 'order'], ['sort=mail&sort=uniqueId', undefined]]) {
      const refused = await fetch(`${subjects()}?${query}`, json(admin));
      expect(refused.status).toBe(400);
      const problem = await bodyOf(refused);
      expect(problem.code).toBe('invalid_request');
      if (path) expect(problem.errors).toEqual([expect.objectContaining({ path })]);
    }
  });

  test('the alias without /resources gives the same answer', async () => {
    const a = await bodyOf(await fetch(`${base}/contexts/employees/subjects/bob`, json(admin)));
    const b = await bodyOf(await fetch(`${subjects()}/bob`, json(admin)));
    expect(a).toEqual(b);
  });

  test('contexts are listed and described', async () => {
    const list = await bodyOf(await fetch(`${base}/resources/contexts`, json(admin)));
    expect(list.contexts.map((c: { id: string }) => c.id)).toEqual(['employees', 'customers']);
    const one = await bodyOf(await fetch(`${base}/resources/contexts/customers`, json(admin)));
    expect(one.context).toMatchObject({ id: 'customers', registration: true });
  });

  test('a context\'s definition carries an ETag, and If-None-Match with it is 304 without a body (a portal revalidates what it holds: issue 28)', async () => {
    const first = await fetch(`${base}/resources/contexts/employees`, json(admin));
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    await first.arrayBuffer();
    const again = await fetch(`${base}/resources/contexts/employees`, json(admin, undefined, { 'if-none-match': etag! }));
    expect([again.status, again.headers.get('etag'), await again.text()]).toEqual([304, etag, '']);
    const other = await fetch(`${base}/resources/contexts/customers`, json(admin, undefined, { 'if-none-match': etag! }));
    expect(other.status).toBe(200);
    expect(other.headers.get('etag')).not.toBe(etag);
  });

  test('a context describes what its forms need: the registration attributes and the password attribute', async () => {
    const customers = await bodyOf(await fetch(`${base}/resources/contexts/customers`, json(admin)));
    expect(customers.context).toMatchObject({ registrationAttributes: ['uniqueId', 'mail', 'givenName', 'familyName', 'password'], passwordAttribute: 'password' });
    expect(customers.context.attributes.roles).toEqual({ type: 'string', multivalued: true, required: false, unique: false, mutability: 'admin' });
    const employees = await bodyOf(await fetch(`${base}/resources/contexts/employees`, json(admin)));
    expect(employees.context).toMatchObject({ registration: false, registrationAttributes: [] });
  });
});

describe('CRUDS in XML', () => {
  test('create, read, update, search, delete', async () => {
    const created = await fetch(subjects(), {
      method: 'POST',
      ...xml(admin, '<subject><uniqueId>dave</uniqueId><attributes><mail>dave@example.com</mail><roles><value>user</value><value>auditor</value></roles></attributes></subject>'),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(await created.text()).toContain('<subject><uniqueId>dave</uniqueId><attributes><mail>dave@example.com</mail><roles><value>user</value><value>auditor</value></roles></attributes></subject>');

    const read = await fetch(`${subjects()}/dave`, xml(admin));
    expect(await read.text()).toContain('<uniqueId>dave</uniqueId>');

    const updated = await fetch(`${subjects()}/dave`, { method: 'PUT', ...xml(admin, '<subject><attributes><givenName>Dave</givenName><roles nil="true"/></attributes></subject>') });
    expect(updated.status).toBe(200);
    expect(await updated.text()).toContain('<givenName>Dave</givenName>');

    const search = await fetch(`${subjects()}?search=dave`, xml(admin));
    const text = await search.text();
    expect(text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?><search><results><value><uniqueId>dave<\/uniqueId>/);
    expect(text).toContain('<total>1</total>');

    expect((await fetch(`${subjects()}/dave`, { method: 'DELETE', ...xml(admin) })).status).toBe(204);
  });

  test('errors come back as application/problem+xml', async () => {
    const res = await fetch(`${subjects()}/nobody`, xml(admin));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+xml/);
    expect(await res.text()).toContain('<code>not_found</code>');
  });

  test('only XML\'s five entities and character references: &nbsp; or &foo; is 400 malformed_body and changes nothing; &#65; is "A"', async () => {
    const before = await dump();
    for (const [method, url, body] of [
      ['PUT', `${subjects()}/bob`, '<subject><attributes><givenName>a&nbsp;b</givenName></attributes></subject>'],
      ['PUT', `${subjects()}/bob`, '<subject><attributes><givenName>a&foo;b</givenName></attributes></subject>'],
      ['PUT', `${subjects()}/bob`, '<subject><attributes><givenName>a&#0;b</givenName></attributes></subject>'],
      ['POST', subjects(), '<subject><uniqueId>erin</uniqueId><attributes><mail>erin@example.com</mail><givenName>a&nbsp;b</givenName></attributes></subject>'],
    ]) {
      const res = await fetch(url, { method, ...xml(admin, body) });
      expect([method, res.status]).toEqual([method, 400]);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+xml/);
      const text = await res.text();
      expect(text).toContain('<code>malformed_body</code>');
      expect(text).toMatch(/&amp;(nbsp|foo|#0);/); // the detail names the reference
    }
    expect(await dump()).toBe(before);

    const created = await fetch(subjects(), { method: 'POST', ...xml(admin, '<subject><uniqueId>erin</uniqueId><attributes><mail>erin@example.com</mail><givenName>&#65;&#x6E;n&amp;#65;</givenName></attributes></subject>') });
    expect(created.status).toBe(201);
    const stored = await server.core.subjects.context('employees').store.get('employees', 'erin');
    expect(stored?.attributes.givenName).toBe('Ann&#65;');
    expect((await fetch(`${subjects()}/erin`, { method: 'DELETE', ...xml(admin) })).status).toBe(204);
  });
});

describe('bad input gets a clear 4xx and changes nothing', () => {
  const bigBody = JSON.stringify({ subject: { uniqueId: 'big', attributes: { givenName: 'x'.repeat(1024 * 1024 + 10) } } });
  const cases: Array<[string, () => Promise<Response>, number, string]> = [
    ['malformed JSON', () => fetch(subjects(), { method: 'POST', ...json(admin), body: '{"subject":' }), 400, 'malformed_body'],
    ['malformed XML', () => fetch(subjects(), { method: 'POST', ...xml(admin, '<subject><uniqueId>x</subject>') }), 400, 'malformed_body'],
    [
      'XML with entities is never expanded',
      () => fetch(subjects(), { method: 'POST', ...xml(admin, '<?xml version="1.0"?><!DOCTYPE s [<!ENTITY x SYSTEM "file:///etc/passwd">]><subject><uniqueId>&x;</uniqueId></subject>') }),
      400,
      'malformed_body',
    ],
    ['a body over the limit', () => fetch(subjects(), { method: 'POST', ...json(admin), body: bigBody }), 413, 'payload_too_large'],
    ['unknown context', () => fetch(`${base}/resources/contexts/nowhere/subjects/bob`, json(admin)), 404, 'not_found'],
    ['an encoded slash in an id', () => fetch(`${subjects()}/a%2Fb`, json(admin)), 400, 'invalid_subject_id'],
    ['a dot-dot id', () => fetch(`${subjects()}/..%2E`, json(admin)), 400, 'invalid_subject_id'],
    ['control characters', () => fetch(`${subjects()}/a%00b`, json(admin)), 400, 'invalid_subject_id'],
    ['an id over 256 characters', () => fetch(`${subjects()}/${'a'.repeat(257)}`, json(admin)), 400, 'invalid_subject_id'],
    ['a duplicate uniqueId', () => fetch(subjects(), { method: 'POST', ...json(admin, { subject: { uniqueId: 'bob', attributes: { mail: 'other@example.com' } } }) }), 409, 'conflict'],
    ['a uniqueId differing only in case', () => fetch(subjects(), { method: 'POST', ...json(admin, { subject: { uniqueId: 'BOB', attributes: { mail: 'other@example.com' } } }) }), 409, 'conflict'],
    ['a duplicate unique attribute', () => fetch(subjects(), { method: 'POST', ...json(admin, { subject: { uniqueId: 'eve', attributes: { mail: 'BOB@example.com' } } }) }), 409, 'conflict'],
    ['an unknown attribute', () => fetch(subjects(), { method: 'POST', ...json(admin, { subject: { uniqueId: 'eve', attributes: { mail: 'eve@example.com', shoeSize: '9' } } }) }), 400, 'invalid_attributes'],
    ['an unknown member', () => fetch(subjects(), { method: 'POST', ...json(admin, { subject: { uniqueId: 'eve' }, extra: 1 }) }), 400, 'malformed_body'],
    ['a missing required attribute', () => fetch(subjects(), { method: 'POST', ...json(admin, { subject: { uniqueId: 'eve', attributes: {} } }) }), 400, 'invalid_attributes'],
    ['a prototype key', () => fetch(subjects(), { method: 'POST', ...json(admin), body: '{"subject":{"uniqueId":"eve","attributes":{"__proto__":{"mail":"x"}}}}' }), 400, 'malformed_body'],
    ['an unsupported media type', () => fetch(subjects(), { method: 'POST', headers: { cookie: admin, 'content-type': 'text/plain' }, body: 'hello' }), 415, 'unsupported_media_type'],
    ['an unacceptable Accept', () => fetch(`${subjects()}/bob`, { headers: { cookie: admin, accept: 'text/csv' } }), 406, 'not_acceptable'],
    ['a filter on a write-only attribute', () => fetch(`${subjects()}?filter=${encodeURIComponent('password pr')}`, json(admin)), 400, 'invalid_filter'],
    ['a repeated query parameter', () => fetch(`${subjects()}?offset=1&offset=2`, json(admin)), 400, 'invalid_request'],
    ['a negative offset', () => fetch(`${subjects()}?offset=-1`, json(admin)), 400, 'invalid_request'],
  ];

  test.each(cases)('%s', async (_name, send, status, code) => {
    const before = await dump();
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+(json|xml)/);
    const text = await res.text();
    expect(text).not.toMatch(/at .*\.(ts|js):\d+/);
    expect(text).toContain(code);
    expect(await dump()).toBe(before);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});

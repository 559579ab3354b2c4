/**
 * The SOAP service (SPEC 13) driven by a real SOAP client built from the served WSDL, in SOAP 1.1
 * and 1.2: every operation, the refusals as faults carrying the problem's code, the two ways of
 * authenticating (the session cookie; the svc:Security header, which leaves no stored session) and
 * the 415 that keeps browsers' forms out.
 */
import { sessionCookies, type Who } from '../authorization/helpers';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { CONTENT_TYPE, envelope, passwordHeader, postEnvelope, soapClient, SVC_NS, VERSIONS, type Outcome } from './helpers';

let server: TestServer;
let who: Record<Who, string>;

beforeAll(async () => {
  server = await startTestServer();
  who = await sessionCookies(server);
});
afterAll(async () => server.stop());

const restRead = (context: string, id: string) => fetch(`${server.baseUrl}/resources/contexts/${context}/subjects/${id}`, { headers: { cookie: who.SYSTEM, accept: 'application/json' } });
const storedSessions = async () => (await server.core.sessions.list(100_000)).length;

function ok(outcome: Outcome): Record<string, unknown> {
  if (outcome.fault) throw new Error(`fault ${outcome.fault.faultcode} ${outcome.fault.code}`);
  return outcome.result;
}

test('the WSDL is served at ?wsdl: urn:svc:soap:v1, SOAP 1.1 and 1.2 bindings, an action per operation', async () => {
  const res = await fetch(`${server.baseUrl}/services/SubjectService?wsdl`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/xml/);
  const wsdl = await res.text();
  expect(wsdl).toContain(`targetNamespace="${SVC_NS}"`);
  expect(wsdl).toContain('<soap:binding style="document"');
  expect(wsdl).toContain('<soap12:binding style="document"');
  for (const op of ['create', 'read', 'update', 'delete', 'search', 'isAllowed', 'getSession']) expect(wsdl).toContain(`soapAction="${SVC_NS}#${op}"`);
  expect(wsdl).toContain(`location="${server.baseUrl}/services/SubjectService"`);
});

describe.each(VERSIONS)('SOAP %s', (version) => {
  const suffix = version === '1.1' ? 'a' : 'b';

  test('every operation, by a real client from the WSDL with an admin session cookie', async () => {
    const client = await soapClient(server.baseUrl, version, { cookie: who.ALICE });
    const id = `carol${suffix}`;

    const created = ok(await client.call('create', { contextId: 'employees', subject: { uniqueId: id, attributes: { mail: `${id}@example.com`, givenName: 'Carol' } } }));
    expect(created.subject).toMatchObject({ uniqueId: id, attributes: { mail: `${id}@example.com`, givenName: 'Carol' } });
    expect(created.etag).toBe('"1"');
    expect((await restRead('employees', id)).status).toBe(200);

    const read = ok(await client.call('read', { contextId: 'employees', subjectId: id }));
    expect(read).toMatchObject({ subject: { uniqueId: id }, etag: '"1"' });

    const updated = ok(await client.call('update', { contextId: 'employees', subjectId: id, subject: { attributes: { givenName: 'Caroline' } }, ifMatch: '"1"' }));
    expect(updated).toMatchObject({ subject: { attributes: { givenName: 'Caroline' } }, etag: '"2"' });
    const stale = await client.call('update', { contextId: 'employees', subjectId: id, subject: { attributes: { givenName: 'Late' } }, ifMatch: '"1"' });
    expect(stale.fault).toMatchObject({ code: 'precondition_failed', status: 412 });

    const found = ok(await client.call('search', { contextId: 'employees', filter: `uniqueId eq "${id}"` }));
    expect(found).toMatchObject({ offset: 0, total: 1, results: { value: [{ uniqueId: id, attributes: { givenName: 'Caroline' } }] } });

    const sorted = ok(await client.call('search', { contextId: 'employees', sort: 'mail', order: 'desc', include: 'status', filter: `uniqueId eq "${id}" or uniqueId eq "alice"` }));
    expect(sorted).toMatchObject({ total: 2, results: { value: [{ uniqueId: id, status: { disabled: false, locked: false } }, { uniqueId: 'alice' }] } });
    expect((await client.call('search', { contextId: 'employees', include: 'roles' })).fault).toMatchObject({ code: 'invalid_request', status: 400 });

    const allowed = ok(await client.call('isAllowed', { operation: 'UPDATE', contextId: 'employees', subjectId: id }));
    expect(allowed).toMatchObject({ decision: 'ALLOW', operation: 'UPDATE', resource: `contexts/employees/subjects/${id}`, sessionType: 'USER', exists: true });
    const denied = ok(await client.call('isAllowed', { operation: 'DELETE', contextId: 'employees', subjectId: 'svcadmin' }));
    expect(denied).toMatchObject({ decision: 'DENY', operation: 'DELETE' });

    const session = ok(await client.call('getSession', {}));
    expect(session.session).toMatchObject({ type: 'USER', clientId: 'svc-web', principal: { uniqueId: 'alice', contextId: 'employees' }, level: 2 });

    ok(await client.call('delete', { contextId: 'employees', subjectId: id }));
    expect((await restRead('employees', id)).status).toBe(404);
    expect((await client.call('read', { contextId: 'employees', subjectId: id })).fault).toMatchObject({ code: 'not_found', status: 404 });
  });

  test('refusals are faults carrying the problem code: Client/Sender for 4xx', async () => {
    const sender = version === '1.1' ? 'Client' : 'Sender';
    const bob = await soapClient(server.baseUrl, version, { cookie: who.BOB });
    const denied = await bob.call('read', { contextId: 'employees', subjectId: 'alice' });
    expect(denied.fault).toEqual({ faultcode: sender, code: 'access_denied', status: 401, httpStatus: 401 });
    const admin = await soapClient(server.baseUrl, version, { cookie: who.SYSTEM });
    expect((await admin.call('delete', { contextId: 'employees', subjectId: 'svcadmin' })).fault).toMatchObject({ faultcode: sender, code: 'access_denied' });
    const invalid = await admin.call('create', { contextId: 'employees', subject: { uniqueId: `eve${suffix}`, attributes: { mail: 'eve@example.com', shoeSize: '9' } } });
    expect(invalid.fault).toMatchObject({ faultcode: sender, code: 'invalid_attributes', status: 400 });
    expect((await admin.call('create', { contextId: 'employees', subject: { uniqueId: `eve${suffix}`, attributes: {} } })).fault).toMatchObject({ code: 'invalid_attributes' });
    expect((await admin.call('read', { contextId: 'nowhere', subjectId: 'bob' })).fault).toMatchObject({ code: 'not_found', status: 404 });
    expect((await admin.call('read', { contextId: 'employees', subjectId: 'a/b' })).fault).toMatchObject({ code: 'invalid_subject_id' });
    expect((await admin.call('isAllowed', { operation: 'READ', contextId: 'employees' })).fault).toMatchObject({ code: 'invalid_operation' });
    expect((await restRead('employees', `eve${suffix}`)).status).toBe(404);
  });

  test('a failure of the service is a Server/Receiver fault: internal_error, no details', async () => {
    const spy = jest.spyOn(server.core.subjects, 'read').mockRejectedValue(new Error('secret internals at /srv/db'));
    try {
      const admin = await soapClient(server.baseUrl, version, { cookie: who.SYSTEM });
      const outcome = await admin.call('read', { contextId: 'employees', subjectId: 'bob' });
      expect(outcome.fault).toEqual({ faultcode: version === '1.1' ? 'Server' : 'Receiver', code: 'internal_error', status: 500, httpStatus: 500 });
      const read = `<svc:read xmlns:svc="${SVC_NS}"><svc:contextId>employees</svc:contextId><svc:subjectId>bob</svc:subjectId></svc:read>`;
      const raw = await postEnvelope(server.baseUrl, envelope(version, read), { cookie: who.SYSTEM, 'content-type': CONTENT_TYPE[version] });
      expect({ status: raw.status, code: raw.code }).toEqual({ status: 500, code: 'internal_error' });
      expect(raw.body).not.toMatch(/secret internals|srv\/db|\n\s+at /);
    } finally {
      spy.mockRestore();
    }
  });

  test('without a session or header: the default client\'s anonymous session, as in REST', async () => {
    const before = await storedSessions();
    const anonymous = await soapClient(server.baseUrl, version);
    const session = ok(await anonymous.call('getSession', {})).session as Record<string, unknown>;
    expect(session).toMatchObject({ type: 'ANON' });
    // xsi:nil, as the WSDL's nillable principal says: the client library reads it as no value (REST's
    // bare nil="true" came through as an element with an attribute, a principal of empty fields).
    expect(session.principal ?? null).toBeNull();
    expect((await anonymous.call('read', { contextId: 'employees', subjectId: 'bob' })).fault).toMatchObject({ code: 'access_denied' });
    expect(await storedSessions()).toBe(before);
  });

  test('the svc:Security header logs in like a login, performs the call, and leaves no stored session', async () => {
    const before = await storedSessions();
    const plain = await soapClient(server.baseUrl, version, { security: () => passwordHeader('svc-web', 'bob', TEST_CREDENTIALS.users.bob) });
    const session = ok(await plain.call('getSession', {}));
    expect(session.session).toMatchObject({ type: 'USER', clientId: 'svc-web', principal: { uniqueId: 'bob', contextId: 'employees' }, level: 2 });
    expect(ok(await plain.call('read', { contextId: 'employees', subjectId: 'bob' }))).toMatchObject({ subject: { uniqueId: 'bob' } });
    expect((await plain.call('read', { contextId: 'employees', subjectId: 'alice' })).fault).toMatchObject({ code: 'access_denied' });

    // A client with a secret seals its clientcred, user and password (SPEC section 5).
    const sealed = await soapClient(server.baseUrl, version, { security: () => passwordHeader('svc-api', 'alice', TEST_CREDENTIALS.users.alice) });
    expect(ok(await sealed.call('getSession', {})).session).toMatchObject({ clientId: 'svc-api', principal: { uniqueId: 'alice' } });
    expect(ok(await sealed.call('search', { contextId: 'employees', quantity: 1 }))).toMatchObject({ quantity: 1 });
    expect(await storedSessions()).toBe(before);

    const wrong = await soapClient(server.baseUrl, version, { security: () => passwordHeader('svc-web', 'bob', 'not-the-password') });
    expect((await wrong.call('getSession', {})).fault).toMatchObject({ code: 'login_failed', status: 401 });
    const unsealed = await soapClient(server.baseUrl, version, { security: () => passwordHeader('svc-web', 'bob', TEST_CREDENTIALS.users.bob).replace(/svc-web/g, 'svc-api') });
    expect((await unsealed.call('getSession', {})).fault).toMatchObject({ code: 'invalid_client', status: 401 });
    expect(await storedSessions()).toBe(before);
  });

  test('a cookie-authenticated call in a non-SOAP content type is 415, and nothing is performed', async () => {
    const body = envelope(version, `<svc:delete xmlns:svc="${SVC_NS}"><svc:contextId>employees</svc:contextId><svc:subjectId>bob</svc:subjectId></svc:delete>`);
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x', 'application/xml']) {
      const answer = await postEnvelope(server.baseUrl, body, { cookie: who.SYSTEM, 'content-type': type });
      expect({ type, status: answer.status, code: answer.code }).toEqual({ type, status: 415, code: 'unsupported_media_type' });
    }
    expect((await restRead('employees', 'bob')).status).toBe(200);
    // The same envelope in its own content type is performed (on a subject made for it).
    const id = `dora${suffix}`;
    const admin = await soapClient(server.baseUrl, version, { cookie: who.SYSTEM });
    ok(await admin.call('create', { contextId: 'employees', subject: { uniqueId: id, attributes: { mail: `${id}@example.com` } } }));
    const own = await postEnvelope(server.baseUrl, body.replace('>bob<', `>${id}<`), { cookie: who.SYSTEM, 'content-type': CONTENT_TYPE[version] });
    expect(own.status).toBe(200);
    expect((await restRead('employees', id)).status).toBe(404);
  });
});

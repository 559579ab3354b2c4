/**
 * Every SOAP answer is what the served WSDL says it is (issue 27 item 4, SPEC 13): the schema is
 * taken out of the WSDL the service serves, and a response of each of the 7 operations, and a fault
 * of each, in SOAP 1.1 and 1.2, is validated against it by xmllint (Debian's libxml2-utils), a
 * validator that is not ours, inside a SOAP envelope schema (test/soap/schemas). A null (an anonymous
 * session's principal) is `xsi:nil`, as the WSDL's nillable element says. The WSDL's address follows
 * X-Forwarded-Proto/-Host from a `trustProxy` peer, and never from another.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionCookies, type Who } from '../authorization/helpers';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { describeWithService, xmllintInvalidity, xmllintRequirement } from '../helpers/services';
import { CONTENT_TYPE, envelope, postEnvelope, SVC_NS, VERSIONS, type OperationName, type SoapVersionName } from './helpers';

const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

/** The WSDL's `<xsd:schema>` as a schema document of its own: the prefixes it uses declared on it. */
export function schemaOfWsdl(wsdl: string): string {
  const match = /<xsd:schema\b([^>]*)>([\s\S]*)<\/xsd:schema>/.exec(wsdl);
  if (!match) throw new Error('the WSDL has no xsd:schema');
  return `<?xml version="1.0" encoding="UTF-8"?><xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="${SVC_NS}"${match[1]}>${match[2]}</xsd:schema>`;
}

const op = (name: string, members = '') => `<${name} xmlns="${SVC_NS}">${members}</${name}>`;
const subject = (id: string, given: string) => `<subject><uniqueId>${id}</uniqueId><attributes><mail>${id}@example.com</mail><givenName>${given}</givenName></attributes></subject>`;

interface Call {
  operation: OperationName;
  who: Who;
  body: string;
  /** The problem code of a fault, or undefined for an answer. */
  fault?: string;
}

/** A success and a refusal of each operation, in the order they run (the subject is created, then deleted). */
function calls(id: string): Call[] {
  return [
    { operation: 'create', who: 'ALICE', body: op('create', `<contextId>employees</contextId>${subject(id, 'Carol')}`) },
    { operation: 'create', who: 'ALICE', body: op('create', `<contextId>employees</contextId>${subject(id, 'Again')}`), fault: 'conflict' },
    { operation: 'read', who: 'ALICE', body: op('read', `<contextId>employees</contextId><subjectId>${id}</subjectId>`) },
    { operation: 'read', who: 'ALICE', body: op('read', '<contextId>employees</contextId><subjectId>ghost</subjectId>'), fault: 'not_found' },
    { operation: 'update', who: 'ALICE', body: op('update', `<contextId>employees</contextId><subjectId>${id}</subjectId><subject><attributes><givenName>Caroline</givenName></attributes></subject><ifMatch>"1"</ifMatch>`) },
    { operation: 'update', who: 'ALICE', body: op('update', `<contextId>employees</contextId><subjectId>${id}</subjectId><subject><attributes><givenName>Late</givenName></attributes></subject><ifMatch>"1"</ifMatch>`), fault: 'precondition_failed' },
    { operation: 'search', who: 'ALICE', body: op('search', `<contextId>employees</contextId><filter>uniqueId eq "${id}"</filter>`) },
    { operation: 'search', who: 'ALICE', body: op('search', '<contextId>employees</contextId><filter>uniqueId zz "x"</filter>'), fault: 'invalid_filter' },
    // Sorted, with each result's status (issue 29): lockedUntil is null, xsi:nil.
    { operation: 'search', who: 'ALICE', body: op('search', '<contextId>employees</contextId><sort>mail</sort><order>desc</order><include>status</include>') },
    { operation: 'search', who: 'ALICE', body: op('search', '<contextId>employees</contextId><sort>roles</sort>'), fault: 'invalid_request' },
    { operation: 'isAllowed', who: 'ALICE', body: op('isAllowed', `<operation>UPDATE</operation><contextId>employees</contextId><subjectId>${id}</subjectId>`) },
    { operation: 'isAllowed', who: 'ALICE', body: op('isAllowed', '<operation>FROB</operation><contextId>employees</contextId>'), fault: 'invalid_operation' },
    { operation: 'getSession', who: 'ALICE', body: op('getSession') },
    // The anonymous session's principal is null: xsi:nil in the WSDL's nillable element.
    { operation: 'getSession', who: 'ANON', body: op('getSession') },
    // An unknown member: a 400 whose problem carries `errors`.
    { operation: 'getSession', who: 'ALICE', body: op('getSession', '<frob>1</frob>'), fault: 'invalid_request' },
    { operation: 'delete', who: 'BOB', body: op('delete', `<contextId>employees</contextId><subjectId>${id}</subjectId>`), fault: 'access_denied' },
    { operation: 'delete', who: 'ALICE', body: op('delete', `<contextId>employees</contextId><subjectId>${id}</subjectId>`) },
  ];
}

describeWithService(xmllintRequirement(), 'SOAP answers against the WSDL schema (xmllint)', () => {
  let server: TestServer;
  let who: Record<Who, string>;
  let dir: string;

  beforeAll(async () => {
    server = await startTestServer();
    who = await sessionCookies(server);
    dir = mkdtempSync(join(tmpdir(), 'svc-wsdl-schema-'));
    const wsdl = await (await fetch(`${server.baseUrl}/services/SubjectService?wsdl`)).text();
    writeFileSync(join(dir, 'svc.xsd'), schemaOfWsdl(wsdl));
    for (const name of ['soap11-envelope.xsd', 'soap12-envelope.xsd']) copyFileSync(join(__dirname, 'schemas', name), join(dir, name));
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const schemaFor = (version: SoapVersionName) => join(dir, version === '1.1' ? 'soap11-envelope.xsd' : 'soap12-envelope.xsd');

  test('the WSDL schema is itself a valid XML Schema, and the envelope schemas refuse what it does not declare', () => {
    const undeclared = envelope('1.1', `<frobResponse xmlns="${SVC_NS}"/>`);
    expect(xmllintInvalidity(undeclared, schemaFor('1.1'))).toMatch(/frobResponse/);
  });

  test.each(VERSIONS)('SOAP %s: a response and a fault of each of the 7 operations validate against the WSDL schema', async (version) => {
    const id = `schema${version === '1.1' ? 'a' : 'b'}`;
    const seen = new Set<string>();
    for (const call of calls(id)) {
      const answer = await postEnvelope(server.baseUrl, envelope(version, call.body), { 'content-type': CONTENT_TYPE[version], cookie: who[call.who] });
      expect({ operation: call.operation, code: answer.code ?? 'answer' }).toEqual({ operation: call.operation, code: call.fault ?? 'answer' });
      expect({ operation: call.operation, fault: call.fault, invalid: xmllintInvalidity(answer.body, schemaFor(version)) }).toEqual({ operation: call.operation, fault: call.fault, invalid: undefined });
      seen.add(`${call.operation}:${call.fault ? 'fault' : 'answer'}`);
    }
    expect(seen.size).toBe(14);
  });

  test.each(VERSIONS)('SOAP %s: an anonymous session\'s principal is xsi:nil, not REST\'s bare nil', async (version) => {
    const answer = await postEnvelope(server.baseUrl, envelope(version, op('getSession')), { 'content-type': CONTENT_TYPE[version], cookie: who.ANON });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain(`xmlns:xsi="${XSI_NS}"`);
    expect(answer.body).toMatch(/<principal xsi:nil="true"\s*\/>|<principal xsi:nil="true"><\/principal>/);
    expect(answer.body).not.toMatch(/<principal nil=/);
  });

  test.each(VERSIONS)('SOAP %s: a fault for a malformed envelope and a version mismatch validate too', async (version) => {
    const other: SoapVersionName = version === '1.1' ? '1.2' : '1.1';
    const mismatch = await postEnvelope(server.baseUrl, envelope(other, op('getSession')), { 'content-type': CONTENT_TYPE[version], cookie: who.ALICE });
    expect(mismatch.faultcode).toBe('VersionMismatch');
    expect(xmllintInvalidity(mismatch.body, schemaFor(version))).toBeUndefined();
    const malformed = await postEnvelope(server.baseUrl, '<?xml version="1.0"?><s:Envelope xmlns:s="x"><s:Body>', { 'content-type': CONTENT_TYPE[version], cookie: who.ALICE });
    expect(malformed.code).toBe('malformed_body');
    expect(xmllintInvalidity(malformed.body, schemaFor(version))).toBeUndefined();
  });
});

describe("the WSDL's address", () => {
  let trusting: TestServer;
  let untrusting: TestServer;

  beforeAll(async () => {
    // The test configuration trusts loopback peers (the demo's gateway addresses): this test's requests.
    trusting = await startTestServer({ configure: (doc) => void ((doc.server as Record<string, unknown>).trustProxy = ['127.0.0.0/8', '::1/128']) });
    untrusting = await startTestServer({ configure: (doc) => void ((doc.server as Record<string, unknown>).trustProxy = ['192.0.2.1/32']) });
  });
  afterAll(async () => {
    await trusting.stop();
    await untrusting.stop();
  });

  const address = async (server: TestServer, headers: Record<string, string>) => {
    const wsdl = await (await fetch(`${server.baseUrl}/services/SubjectService?wsdl`, { headers })).text();
    return [...wsdl.matchAll(/<soap(?:12)?:address location="([^"]*)"\/>/g)].map((m) => m[1]);
  };

  test('behind a trusted TLS-terminating proxy it is the https:// address the client used', async () => {
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'svc.example.org' };
    expect(await address(trusting, forwarded)).toEqual(['https://svc.example.org/svc/services/SubjectService', 'https://svc.example.org/svc/services/SubjectService']);
    // A chain of proxies: the first (the client's own) of each list.
    expect(await address(trusting, { 'x-forwarded-proto': 'https, http', 'x-forwarded-host': 'svc.example.org:8443, inner:8080' })).toEqual([
      'https://svc.example.org:8443/svc/services/SubjectService',
      'https://svc.example.org:8443/svc/services/SubjectService',
    ]);
  });

  test('a forwarded host or scheme that is not a plain one is not echoed: the direct address stands', async () => {
    const direct = `${trusting.baseUrl}/services/SubjectService`;
    expect(await address(trusting, { 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'evil.example"><x' })).toEqual([direct, direct]);
  });

  test('from a peer outside trustProxy the forwarded headers are ignored', async () => {
    const direct = `${untrusting.baseUrl}/services/SubjectService`;
    expect(await address(untrusting, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'svc.example.org' })).toEqual([direct, direct]);
  });
});

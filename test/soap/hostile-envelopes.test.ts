/**
 * Hand-written hostile envelopes, in both SOAP versions: each is a fault carrying the precise
 * problem code (never a stack trace or parser internals), the store is unchanged, and the process
 * stays healthy. The same kinds are rows of the hostile catalogue (test/hostile/core-cases.ts).
 */
import { dumpStore, sessionCookies, type Who } from '../authorization/helpers';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { CONTENT_TYPE, ENVELOPE_NS, envelope, postEnvelope, SVC_NS, VERSIONS, type SoapVersionName } from './helpers';

let server: TestServer;
let who: Record<Who, string>;

beforeAll(async () => {
  server = await startTestServer();
  who = await sessionCookies(server);
});
afterAll(async () => server.stop());

const READ = `<svc:read xmlns:svc="${SVC_NS}"><svc:contextId>employees</svc:contextId><svc:subjectId>bob</svc:subjectId></svc:read>`;
const DELETE = `<svc:delete xmlns:svc="${SVC_NS}"><svc:contextId>employees</svc:contextId><svc:subjectId>bob</svc:subjectId></svc:delete>`;
const createWith = (mail: string) => `<svc:create xmlns:svc="${SVC_NS}"><svc:contextId>employees</svc:contextId><svc:subject><svc:uniqueId>mallory</svc:uniqueId><svc:attributes><svc:mail>${mail}</svc:mail></svc:attributes></svc:subject></svc:create>`;
const LAUGHS = '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>';

interface Row {
  kind: string;
  envelope: (v: SoapVersionName) => string;
  headers?: (v: SoapVersionName) => Record<string, string>;
  code: string;
  faultcode?: string;
}

const ROWS: Row[] = [
  { kind: 'an empty body', envelope: () => '', code: 'malformed_body' },
  { kind: 'text that is not XML', envelope: () => 'read bob please', code: 'malformed_body' },
  { kind: 'external entity (XXE) in the envelope', envelope: (v) => `<?xml version="1.0"?><!DOCTYPE e [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${envelope(v, createWith('&xxe;'))}`, code: 'malformed_body' },
  { kind: 'billion laughs', envelope: (v) => `<?xml version="1.0"?>${LAUGHS}${envelope(v, createWith('&lol3;'))}`, code: 'malformed_body' },
  { kind: 'parameter entity', envelope: (v) => `<!DOCTYPE e [<!ENTITY % p SYSTEM "http://127.0.0.1:1/">%p;]>${envelope(v, READ)}`, code: 'malformed_body' },
  { kind: 'the other version\'s envelope namespace', envelope: (v) => envelope(v === '1.1' ? '1.2' : '1.1', DELETE), code: 'malformed_body', faultcode: 'VersionMismatch' },
  { kind: 'an envelope in no SOAP namespace', envelope: () => `<Envelope xmlns="urn:not-soap"><Body>${DELETE}</Body></Envelope>`, code: 'malformed_body', faultcode: 'VersionMismatch' },
  { kind: 'the operation in a foreign namespace', envelope: (v) => envelope(v, DELETE.replaceAll(SVC_NS, 'urn:svc:soap:v2')), code: 'invalid_request' },
  { kind: 'a parameter in a foreign namespace', envelope: (v) => envelope(v, `<svc:delete xmlns:svc="${SVC_NS}" xmlns:x="urn:evil"><x:contextId>employees</x:contextId><svc:subjectId>bob</svc:subjectId></svc:delete>`), code: 'malformed_body' },
  { kind: 'an undeclared prefix', envelope: (v) => envelope(v, '<svc:delete><svc:contextId>employees</svc:contextId><svc:subjectId>bob</svc:subjectId></svc:delete>'), code: 'malformed_body' },
  { kind: 'Body and Header swapped', envelope: (v) => `<s:Envelope xmlns:s="${ENVELOPE_NS[v]}"><s:Body>${DELETE}</s:Body><s:Header/></s:Envelope>`, code: 'malformed_body' },
  { kind: 'two operations in one Body', envelope: (v) => envelope(v, DELETE + DELETE), code: 'malformed_body' },
  { kind: 'a repeated parameter (the last would win)', envelope: (v) => envelope(v, DELETE.replace('<svc:subjectId>bob</svc:subjectId>', '<svc:subjectId>nobody</svc:subjectId><svc:subjectId>bob</svc:subjectId>')), code: 'malformed_body' },
  { kind: 'an unknown parameter', envelope: (v) => envelope(v, DELETE.replace('</svc:delete>', '<svc:force>true</svc:force></svc:delete>')), code: 'invalid_request' },
  { kind: 'element __proto__ in the attributes', envelope: (v) => envelope(v, createWith('m@example.com').replace('<svc:mail>', '<svc:__proto__><svc:roles>admin</svc:roles></svc:__proto__><svc:mail>')), code: 'malformed_body' },
  { kind: 'nesting 10 000 deep', envelope: (v) => envelope(v, '<a>'.repeat(10_000) + '</a>'.repeat(10_000)), code: 'malformed_body' },
  { kind: 'a body over body.limit', envelope: (v) => envelope(v, createWith('x'.repeat(2_000_000))), code: 'payload_too_large' },
  { kind: 'a SOAPAction naming another operation', envelope: (v) => envelope(v, DELETE), headers: (v): Record<string, string> => (v === '1.1' ? { soapaction: `"${SVC_NS}#read"` } : { 'content-type': `${CONTENT_TYPE[v]}; action="${SVC_NS}#read"` }), code: 'invalid_request' },
  { kind: 'a foreign header that must be understood', envelope: (v) => envelope(v, DELETE, `<x:Tx xmlns:x="urn:x" xmlns:s="${ENVELOPE_NS[v]}" s:mustUnderstand="1">1</x:Tx>`), code: 'invalid_request' },
  { kind: 'a Security header with an unknown member', envelope: (v) => envelope(v, READ, `<svc:Security xmlns:svc="${SVC_NS}"><svc:clientId>svc-web</svc:clientId><svc:token>t</svc:token><svc:role>admin</svc:role></svc:Security>`), code: 'invalid_request' },
  { kind: 'a Security header with a token and a password', envelope: (v) => envelope(v, READ, `<svc:Security xmlns:svc="${SVC_NS}"><svc:clientId>svc-web</svc:clientId><svc:token>t</svc:token><svc:user>bob</svc:user><svc:password>p</svc:password></svc:Security>`), code: 'invalid_request' },
];

const LEAKS = /\n\s+at [\w.<]|Maximum call stack|SQLITE|internal_error|root:x:0/;

describe.each(VERSIONS)('SOAP %s', (version) => {
  test.each(ROWS.map((row) => [row.kind, row] as const))('%s', async (_kind, row) => {
    const before = await dumpStore(server);
    const answer = await postEnvelope(server.baseUrl, row.envelope(version), { cookie: who.SYSTEM, 'content-type': CONTENT_TYPE[version], ...row.headers?.(version) });
    const sender = version === '1.1' ? 'Client' : 'Sender';
    expect({ status: answer.status, code: answer.code, faultcode: answer.faultcode }).toEqual({ status: row.code === 'payload_too_large' ? 413 : 400, code: row.code, faultcode: row.faultcode ?? sender });
    expect(answer.contentType.startsWith(CONTENT_TYPE[version].split(';')[0])).toBe(true);
    expect(answer.body).not.toMatch(LEAKS);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect(await dumpStore(server)).toBe(before);
  });
});

/**
 * The hostile-input catalogue for the core (issue 16): one row per kind of attack, each sent to a
 * real server. The runner (catalogue.test.ts) asserts for every row what the row expects, that the
 * process is still healthy, that no stack trace or parser internals leak, and that the store is
 * unchanged (a digest of every subject before and after).
 */
import { ClientSealer } from '../../client/src/clientcred/sealer';
import { TEST_CREDENTIALS } from '../helpers/core-server';
import { sealedParams } from '../helpers/login';
import { rawRequest, type RawAnswer } from './raw-http';

export interface Target {
  /** `http://host:port` */
  url: string;
  /** `{base}` */
  base: string;
  /** The context root, e.g. `/svc`. */
  root: string;
  /** Session cookies (name=value). */
  admin: string;
  bob: string;
  system: string;
}

export interface Outcome {
  status: number;
  code?: string;
  location?: string | null;
  body: string;
}

export interface HostileCase {
  group: string;
  kind: string;
  send: (t: Target) => Promise<Outcome>;
  /** Expected status (one of), and code when the answer is a problem. */
  status: number | number[];
  code?: string;
  /** Further checks on the outcome. */
  check?: (o: Outcome, t: Target) => void;
}

const subjects = (t: Target, context = 'employees') => `${t.base}/resources/contexts/${context}/subjects`;

async function http(url: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Outcome> {
  const res = await fetch(url, { redirect: 'manual', ...init, headers: { accept: 'application/json', ...init.headers } });
  const body = await res.text();
  let code: string | undefined;
  try {
    code = (JSON.parse(body) as { code?: string }).code;
  } catch {
    code = undefined;
  }
  return { status: res.status, code, location: res.headers.get('location'), body };
}

function fromRaw(answer: RawAnswer): Outcome {
  return { status: answer.status, code: answer.json?.code as string | undefined, location: answer.headers.location ?? null, body: answer.body };
}

/** `size` bytes of spaces as one chunk of a chunked body, and the last chunk. */
const chunked = (size: number) => `${size.toString(16)}\r\n${' '.repeat(size)}\r\n0\r\n\r\n`;

/** A raw request line and headers (CRLF added), with an optional body. */
async function raw(t: Target, head: string[], body: Buffer | string = ''): Promise<Outcome> {
  const bytes = Buffer.concat([Buffer.from(head.join('\r\n') + '\r\n\r\n', 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body)]);
  return fromRaw(await rawRequest(t.url, bytes));
}

const create = (t: Target, type: string, body: string | Buffer, cookie = t.admin) =>
  http(subjects(t), { method: 'POST', headers: { cookie, 'content-type': type }, body });

const xml = (t: Target, body: string) => create(t, 'application/xml', body);
const json = (t: Target, body: string) => create(t, 'application/json', body);
const read = (t: Target, path: string) => http(`${t.base}/resources/contexts/${path}`, { headers: { cookie: t.admin } });
const filter = (t: Target, f: string) => http(`${subjects(t)}?filter=${encodeURIComponent(f)}`, { headers: { cookie: t.admin } });

/** A login by the svc-api client (a secret), with its sealed parameters changed by `mangle`. */
function sealedLogin(t: Target, mangle: (params: Record<string, string>, sealer: ClientSealer) => Record<string, string>, credentials = { user: 'bob', password: TEST_CREDENTIALS.users.bob }): Promise<Outcome> {
  const sealer = new ClientSealer('svc-api', TEST_CREDENTIALS.clients['svc-api']);
  const params = mangle(sealedParams(sealer, credentials), sealer);
  return http(`${t.base}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params).toString() });
}

/** A browser's login form post with `goto`: the answer must never point off-site. */
const loginWithGoto = (t: Target, goto: string) =>
  http(`${t.base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', origin: t.url },
    body: new URLSearchParams({ user: 'bob', password: TEST_CREDENTIALS.users.bob, clientid: 'svc-web', goto }).toString(),
  });

const stayOnSite = (o: Outcome, t: Target) => {
  const location = o.location ?? '';
  expect(location.startsWith(`${t.root}/`)).toBe(true);
  expect(location).not.toMatch(/^\/[/\\]|evil|javascript:/i);
};

const crossSite = (path: string, form: Record<string, string>, cookie: (t: Target) => string = () => '') => (t: Target) =>
  http(`${t.base}${path}`, { method: 'POST', headers: { cookie: cookie(t), origin: 'https://evil.example', accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });

const BILLION_LAUGHS = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><subject><uniqueId>&lol3;</uniqueId></subject>`;
const XXE = `<?xml version="1.0"?><!DOCTYPE subject [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><subject><uniqueId>x</uniqueId><attributes><mail>&xxe;</mail></attributes></subject>`;
const subjectJson = (id: string, attributes: Record<string, unknown> = { mail: `${id}@example.com` }) => JSON.stringify({ subject: { uniqueId: id, attributes } });

const SOAP_NS = 'urn:svc:soap:v1';
const SOAP_11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const soapEnvelope = (body: string, envelopeNs = SOAP_11) => `<s:Envelope xmlns:s="${envelopeNs}"><s:Body>${body}</s:Body></s:Envelope>`;
const soapCreate = (mail: string) => `<v:create xmlns:v="${SOAP_NS}"><v:contextId>employees</v:contextId><v:subject><v:uniqueId>mallory</v:uniqueId><v:attributes><v:mail>${mail}</v:mail></v:attributes></v:subject></v:create>`;
const SOAP_DELETE = `<v:delete xmlns:v="${SOAP_NS}"><v:contextId>employees</v:contextId><v:subjectId>bob</v:subjectId></v:delete>`;

/** A SOAP 1.1 call with the admin's cookie; the problem code is read from the fault's detail. */
async function soapCall(t: Target, body: string, type = 'text/xml; charset=utf-8', headers: Record<string, string> = {}): Promise<Outcome> {
  const res = await fetch(`${t.base}/services/SubjectService`, { method: 'POST', headers: { cookie: t.admin, 'content-type': type, ...headers }, body });
  const text = await res.text();
  return { status: res.status, code: /<code>([a-z_]+)<\/code>/.exec(text)?.[1] ?? /"code":"([a-z_]+)"/.exec(text)?.[1], location: null, body: text };
}

export const CORE_CASES: HostileCase[] = [
  // XML
  { group: 'XML', kind: 'billion laughs (entity expansion)', send: (t) => xml(t, BILLION_LAUGHS), status: 400, code: 'malformed_body' },
  { group: 'XML', kind: 'external entity (XXE)', send: (t) => xml(t, XXE), status: 400, code: 'malformed_body' },
  { group: 'XML', kind: 'parameter entity in an internal subset', send: (t) => xml(t, '<!DOCTYPE s [<!ENTITY % p SYSTEM "http://127.0.0.1:1/">%p;]><subject/>'), status: 400, code: 'malformed_body' },
  { group: 'XML', kind: 'nesting 10 000 deep', send: (t) => xml(t, '<a>'.repeat(10_000) + '</a>'.repeat(10_000)), status: 400, code: 'malformed_body' },
  { group: 'XML', kind: 'element __proto__', send: (t) => xml(t, '<subject><__proto__><roles><value>admin</value></roles></__proto__></subject>'), status: 400, code: 'malformed_body' },
  { group: 'XML', kind: 'element constructor', send: (t) => xml(t, '<subject><constructor>x</constructor></subject>'), status: 400, code: 'malformed_body' },
  { group: 'XML', kind: 'processing instruction', send: (t) => xml(t, '<?xml-stylesheet href="http://evil.example/x.xsl"?><subject/>'), status: 400, code: 'malformed_body' },
  { group: 'XML', kind: 'unclosed element', send: (t) => xml(t, '<subject><uniqueId>x</subject>'), status: 400, code: 'malformed_body' },
  { group: 'XML', kind: 'two root elements', send: (t) => xml(t, '<subject/><subject/>'), status: 400, code: 'malformed_body' },
  { group: 'XML', kind: 'unexpected attribute', send: (t) => xml(t, '<subject admin="true"><uniqueId>x</uniqueId></subject>'), status: 400, code: 'malformed_body' },
  // Only XML's five entities are references a body may use (SPEC section 3): HTML's or any undeclared one is refused, never kept as text.
  { group: 'XML', kind: 'an HTML entity reference (&nbsp;) in a value', send: (t) => xml(t, '<subject><uniqueId>mallory</uniqueId><attributes><mail>m@example.com</mail><givenName>a&nbsp;b</givenName></attributes></subject>'), status: 400, code: 'malformed_body' },
  { group: 'XML', kind: 'an undeclared entity reference (&foo;) in a value', send: (t) => xml(t, '<subject><uniqueId>mallory</uniqueId><attributes><mail>m@example.com</mail><givenName>a&foo;b</givenName></attributes></subject>'), status: 400, code: 'malformed_body' },
  { group: 'XML', kind: 'a character reference to NUL (&#0;)', send: (t) => xml(t, '<subject><uniqueId>mallory</uniqueId><attributes><mail>m@example.com</mail><givenName>a&#0;b</givenName></attributes></subject>'), status: 400, code: 'malformed_body' },
  { group: 'XML', kind: 'a character reference to a lone surrogate (&#xD800;)', send: (t) => xml(t, '<subject><uniqueId>mallory</uniqueId><attributes><mail>m@example.com</mail><givenName>a&#xD800;b</givenName></attributes></subject>'), status: 400, code: 'malformed_body' },
  // JSON
  { group: 'JSON', kind: 'nesting 100 000 deep', send: (t) => json(t, '['.repeat(100_000) + ']'.repeat(100_000)), status: 400, code: 'malformed_body' },
  { group: 'JSON', kind: 'key __proto__ (prototype pollution)', send: (t) => json(t, '{"subject":{"uniqueId":"pp","attributes":{"mail":"pp@example.com"},"__proto__":{"isAdmin":true}}}'), status: 400, code: 'malformed_body' },
  { group: 'JSON', kind: 'key constructor.prototype', send: (t) => json(t, '{"constructor":{"prototype":{"isAdmin":true}}}'), status: 400, code: 'malformed_body' },
  { group: 'JSON', kind: 'duplicate keys (the last would win)', send: (t) => json(t, '{"subject":{"uniqueId":"dup","uniqueId":"alice2"}}'), status: 400, code: 'malformed_body' },
  { group: 'JSON', kind: 'truncated document', send: (t) => json(t, '{"subject":{"uniqueId":"x"'), status: 400, code: 'malformed_body' },
  { group: 'JSON', kind: 'top-level array', send: (t) => json(t, '[{"subject":{}}]'), status: 400, code: 'malformed_body' },
  { group: 'JSON', kind: 'unknown member', send: (t) => json(t, '{"subject":{"uniqueId":"u1","attributes":{"mail":"u1@example.com"},"roles":["admin"]}}'), status: 400 },
  // Encodings
  { group: 'Encoding', kind: 'invalid UTF-8 in a body', send: (t) => create(t, 'application/json', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])), status: 400, code: 'malformed_body' },
  { group: 'Encoding', kind: 'overlong UTF-8 encoding of "/" in a body', send: (t) => create(t, 'application/json', Buffer.concat([Buffer.from('{"subject":{"uniqueId":"a'), Buffer.from([0xc0, 0xaf]), Buffer.from('b"}}')])), status: 400, code: 'malformed_body' },
  { group: 'Encoding', kind: 'invalid percent-encoding in a path', send: (t) => read(t, 'employees/subjects/%FF%FE'), status: 400 },
  // Issue 24: a malformed percent-escape anywhere in a path is 400 on every process (SPEC 3), pages included.
  { group: 'Encoding', kind: 'a lone % in a path', send: (t) => read(t, 'employees/subjects/%'), status: 400 },
  { group: 'Encoding', kind: 'a truncated escape (%E0%A4%A) in a page path', send: (t) => http(`${t.base}/login/%E0%A4%A`, { headers: { accept: 'text/html' } }), status: 400 },
  { group: 'Encoding', kind: 'overlong UTF-8 dots (%C0%AE%C0%AE) in a path', send: (t) => read(t, 'employees/subjects/%C0%AE%C0%AE'), status: 400 },
  { group: 'Encoding', kind: 'NUL byte in a subject id', send: (t) => read(t, 'employees/subjects/bob%00'), status: 400, code: 'invalid_subject_id' },
  { group: 'Encoding', kind: 'NUL byte in an attribute value', send: (t) => json(t, subjectJson('nul1', { mail: 'nul1@example.com', givenName: 'a\u0000b' })), status: 400, code: 'invalid_attributes' },
  { group: 'Encoding', kind: 'control characters in an attribute value', send: (t) => json(t, subjectJson('ctl1', { mail: 'ctl1@example.com', givenName: 'a\u001b[31mred' })), status: 400, code: 'invalid_attributes' },
  // Found by test/fuzz: SQLite stored a lone surrogate as U+FFFD (not what was acknowledged), and the
  // SQL search missed a value with U+10FFFF after the prefix that the in-memory search found.
  { group: 'Encoding', kind: 'a lone surrogate (JSON \\ud800) in an attribute value', send: (t) => json(t, subjectJson('sur1', { mail: 'sur1@example.com', givenName: 'a\ud800b' })), status: 400, code: 'invalid_attributes' },
  { group: 'Encoding', kind: 'a Unicode noncharacter (U+FFFF, U+10FFFF) in an attribute value', send: (t) => json(t, subjectJson('non1', { mail: 'non1@example.com', givenName: 'a\uffff', familyName: 'b\u{10ffff}' })), status: 400, code: 'invalid_attributes' },
  { group: 'Encoding', kind: 'unsupported Content-Type', send: (t) => create(t, 'text/plain', 'uniqueId=x'), status: 415, code: 'unsupported_media_type' },
  { group: 'Encoding', kind: 'unacceptable Accept', send: (t) => http(`${subjects(t)}/bob`, { headers: { cookie: t.admin, accept: 'image/png' } }), status: 406, code: 'not_acceptable' },
  // Sizes
  { group: 'Size', kind: 'oversized headers (64 KiB)', send: (t) => raw(t, [`GET ${t.root}/resources/session HTTP/1.1`, `Host: x`, `X-Big: ${'a'.repeat(65_536)}`, 'Connection: close']), status: 431, code: 'headers_too_large' },
  { group: 'Size', kind: 'oversized cookie (32 KiB)', send: (t) => raw(t, [`GET ${t.root}/resources/session HTTP/1.1`, `Host: x`, `Cookie: SVCSESSIONID=${'a'.repeat(32_768)}`, 'Connection: close']), status: 431, code: 'headers_too_large' },
  { group: 'Size', kind: 'oversized URL (100 KiB)', send: (t) => raw(t, [`GET ${t.root}/resources/contexts/employees/subjects/${'a'.repeat(100_000)} HTTP/1.1`, 'Host: x', 'Connection: close']), status: [414, 431] },
  { group: 'Size', kind: 'oversized subject id (257 characters)', send: (t) => read(t, `employees/subjects/${'a'.repeat(257)}`), status: 400, code: 'invalid_subject_id' },
  { group: 'Size', kind: 'oversized body (2 MiB)', send: (t) => json(t, subjectJson('big', { mail: 'big@example.com', givenName: 'x'.repeat(2 * 1024 * 1024) })), status: 413, code: 'payload_too_large' },
  { group: 'Size', kind: 'Content-Length larger than the limit, no body sent', send: (t) => raw(t, [`POST ${t.root}/resources/contexts/employees/subjects HTTP/1.1`, 'Host: x', `Cookie: ${t.admin}`, 'Content-Type: application/json', 'Content-Length: 99999999', 'Connection: close']), status: 413, code: 'payload_too_large' },
  { group: 'Size', kind: 'a chunked body over the limit', send: (t) => raw(t, [`POST ${t.root}/resources/contexts/employees/subjects HTTP/1.1`, 'Host: x', `Cookie: ${t.admin}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked', 'Connection: close'], chunked(2 * 1024 * 1024)), status: 413, code: 'payload_too_large' },
  // Parameters
  { group: 'Parameters', kind: 'a repeated parameter (quantity twice)', send: (t) => http(`${subjects(t)}?quantity=1&quantity=1000000`, { headers: { cookie: t.admin } }), status: 400 },
  { group: 'Parameters', kind: 'conflicting isAllowed values', send: (t) => http(`${subjects(t)}/bob?isAllowed=READ&ISALLOWED=DELETE`, { method: 'DELETE', headers: { cookie: t.admin } }), status: 400, code: 'invalid_operation' },
  { group: 'Parameters', kind: 'near-miss isAllowed[] on DELETE', send: (t) => http(`${subjects(t)}/bob?isAllowed[]=DELETE`, { method: 'DELETE', headers: { cookie: t.admin } }), status: 400, code: 'invalid_operation' },
  { group: 'Parameters', kind: 'isAllowed after 1000 other parameters, on DELETE (a parser key limit)', send: (t) => http(`${subjects(t)}/bob?${'a=1&'.repeat(1000)}isAllowed=DELETE`, { method: 'DELETE', headers: { cookie: t.admin } }), status: 200, check: (o) => expect(o.body).toContain('"ALLOW"') },
  {
    group: 'Parameters',
    kind: 'isAllowed after 1000 other parameters, on a create (a parser key limit)',
    send: (t) => http(`${subjects(t)}?${'a=1&'.repeat(1000)}isAllowed=CREATE`, { method: 'POST', headers: { cookie: t.admin, 'content-type': 'application/json' }, body: JSON.stringify({ subject: { uniqueId: 'checked-only', attributes: { mail: 'checked-only@example.com' } } }) }),
    status: 200,
    check: (o) => expect(o.body).toContain('"ALLOW"'),
  },
  { group: 'Parameters', kind: 'a non-numeric offset', send: (t) => http(`${subjects(t)}?offset=-1`, { headers: { cookie: t.admin } }), status: 400 },
  { group: 'Parameters', kind: 'credentials in the query string', send: (t) => http(`${t.base}/login?password=x&user=bob`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' }), status: 400 },
  { group: 'Parameters', kind: 'a repeated login parameter', send: (t) => http(`${t.base}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'user=bob&user=alice&password=x' }), status: 400 },
  // Paths
  { group: 'Paths', kind: 'traversal ../ in a subject id', send: (t) => read(t, 'employees/subjects/..%2F..%2Fconfig'), status: 400 },
  { group: 'Paths', kind: 'encoded slash in a subject id', send: (t) => read(t, 'employees/subjects/bob%2Fpassword'), status: 400, code: 'invalid_subject_id' },
  { group: 'Paths', kind: 'encoded dots as a subject id', send: (t) => read(t, 'employees/subjects/%2E%2E'), status: [400, 404] },
  { group: 'Paths', kind: 'double-encoded slash', send: (t) => read(t, 'employees/subjects/bob%252Fx'), status: 400, code: 'invalid_subject_id' },
  { group: 'Paths', kind: 'backslash in a subject id', send: (t) => read(t, 'employees/subjects/bob%5C..%5Calice'), status: 400, code: 'invalid_subject_id' },
  { group: 'Paths', kind: 'traversal in a context id', send: (t) => read(t, '..%2Femployees/subjects/bob'), status: [400, 404] },
  { group: 'Paths', kind: 'dot segments reaching the config area', send: (t) => raw(t, [`GET ${t.root}/resources/../config HTTP/1.1`, 'Host: x', 'Accept: application/json', 'Connection: close']), status: [401, 403, 404] },
  { group: 'Paths', kind: 'absolute-form target naming another host', send: (t) => raw(t, [`GET http://evil.example${t.root}/resources/session HTTP/1.1`, 'Host: evil.example', 'Accept: application/json', 'Connection: close']), status: [200, 400] },
  // SCIM filter
  { group: 'Filter', kind: 'unbalanced parentheses', send: (t) => filter(t, '(mail eq "a"'), status: 400, code: 'invalid_filter' },
  { group: 'Filter', kind: 'nesting 1 000 deep', send: (t) => filter(t, '('.repeat(1000) + 'mail pr' + ')'.repeat(1000)), status: 400, code: 'invalid_filter' },
  { group: 'Filter', kind: 'an or-chain of 500 comparisons', send: (t) => filter(t, Array.from({ length: 500 }, (_, i) => `mail eq "${i}"`).join(' or ')), status: 400, code: 'invalid_filter' },
  { group: 'Filter', kind: 'an operator on a write-only attribute', send: (t) => filter(t, 'password sw "$argon2"'), status: 400, code: 'invalid_filter' },
  { group: 'Filter', kind: 'presence of a write-only attribute', send: (t) => filter(t, 'answers pr'), status: 400, code: 'invalid_filter' },
  { group: 'Filter', kind: 'an unknown operator', send: (t) => filter(t, 'mail regex ".*"'), status: 400, code: 'invalid_filter' },
  { group: 'Filter', kind: 'an unterminated string', send: (t) => filter(t, 'mail eq "abc'), status: 400, code: 'invalid_filter' },
  // Metacharacters: taken as text, never as syntax
  { group: 'Metacharacters', kind: 'SQL in a filter value', send: (t) => filter(t, `mail eq "x' OR '1'='1"`), status: 200, check: (o) => expect(JSON.parse(o.body)).toMatchObject({ total: 0 }) },
  { group: 'Metacharacters', kind: 'SQL LIKE wildcards in free text', send: (t) => http(`${subjects(t)}?search=${encodeURIComponent('%_%')}`, { headers: { cookie: t.admin } }), status: 200, check: (o) => expect(JSON.parse(o.body)).toMatchObject({ total: 0 }) },
  { group: 'Metacharacters', kind: 'LDAP filter syntax in free text', send: (t) => http(`${subjects(t)}?search=${encodeURIComponent('*)(uid=*')}`, { headers: { cookie: t.admin } }), status: 200, check: (o) => expect(JSON.parse(o.body)).toMatchObject({ total: 0 }) },
  { group: 'Metacharacters', kind: 'SQL in a login name', send: (t) => http(`${t.base}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ user: "bob' OR '1'='1' --", password: 'x', clientid: 'svc-web' }).toString() }), status: 401, code: 'login_failed' },
  { group: 'Metacharacters', kind: 'LDAP metacharacters in a login name', send: (t) => http(`${t.base}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ user: '*)(|(uid=*', password: '*', clientid: 'svc-web' }).toString() }), status: 401, code: 'login_failed' },
  // clientcred
  { group: 'clientcred', kind: 'forged (random bytes)', send: (t) => sealedLogin(t, (p) => ({ ...p, clientcred: `v1.${Buffer.alloc(80, 7).toString('base64url')}` })), status: 401, code: 'invalid_client' },
  { group: 'clientcred', kind: 'truncated', send: (t) => sealedLogin(t, (p) => ({ ...p, clientcred: p.clientcred.slice(0, -6) })), status: 401, code: 'invalid_client' },
  { group: 'clientcred', kind: 're-encoded as padded base64', send: (t) => sealedLogin(t, (p) => ({ ...p, clientcred: `v1.${Buffer.from(p.clientcred.slice(3), 'base64url').toString('base64')}` })), status: 401, code: 'invalid_client' },
  { group: 'clientcred', kind: 'another client\'s credential', send: (t) => sealedLogin(t, (p) => ({ ...p, clientid: 'portal-gateway' })), status: 401, code: 'invalid_client' },
  { group: 'clientcred', kind: 'stale timestamp (an hour old)', send: (t) => sealedLogin(t, (_p, sealer) => sealedParams(sealer, { user: 'bob', password: TEST_CREDENTIALS.users.bob }, Math.floor(Date.now() / 1000) - 3600)), status: 401, code: 'invalid_client' },
  { group: 'clientcred', kind: 'a user sealed for another parameter name', send: (t) => sealedLogin(t, (p) => ({ ...p, user: p.password })), status: 401, code: 'invalid_client' },
  { group: 'clientcred', kind: 'an unsealed password from a client with a secret', send: (t) => sealedLogin(t, (p) => ({ ...p, password: TEST_CREDENTIALS.users.bob })), status: 401, code: 'invalid_client' },
  {
    group: 'clientcred',
    kind: 'replayed',
    send: async (t) => {
      const sealer = new ClientSealer('svc-api', TEST_CREDENTIALS.clients['svc-api']);
      const body = new URLSearchParams(sealedParams(sealer, { user: 'nobody-here', password: 'x' })).toString();
      const post = () => http(`${t.base}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
      expect((await post()).code).toBe('login_failed');
      return post();
    },
    status: 401,
    code: 'invalid_client',
  },
  // goto
  { group: 'goto', kind: '//evil.example', send: (t) => loginWithGoto(t, '//evil.example/'), status: 302, check: stayOnSite },
  { group: 'goto', kind: '/\\evil.example', send: (t) => loginWithGoto(t, '/\\evil.example/'), status: 302, check: stayOnSite },
  { group: 'goto', kind: 'javascript: URL', send: (t) => loginWithGoto(t, 'javascript:alert(1)'), status: 302, check: stayOnSite },
  { group: 'goto', kind: 'absolute URL of another origin', send: (t) => loginWithGoto(t, 'https://evil.example/'), status: 302, check: stayOnSite },
  { group: 'goto', kind: 'percent-encoded //', send: (t) => loginWithGoto(t, '%2F%2Fevil.example'), status: 302, check: stayOnSite },
  { group: 'goto', kind: 'tab inside //', send: (t) => loginWithGoto(t, '/\t/evil.example'), status: 302, check: stayOnSite },
  { group: 'goto', kind: 'dot segments out of the root', send: (t) => loginWithGoto(t, `${t.root}/../..//evil.example`), status: 302, check: stayOnSite },
  { group: 'goto', kind: 'CR LF header injection', send: (t) => loginWithGoto(t, `${t.root}/\r\nSet-Cookie: x=1`), status: 302, check: stayOnSite },
  // Cross-site form posts (every form of the core)
  { group: 'Cross-site', kind: 'login form', send: crossSite('/login', { user: 'bob', password: 'x', clientid: 'svc-web' }), status: 403 },
  { group: 'Cross-site', kind: 'logout form', send: crossSite('/logout', {}, (t) => t.bob), status: 403 },
  { group: 'Cross-site', kind: 'registration form', send: crossSite('/anon/register', { context: 'customers', uniqueId: 'csrf1', 'a.mail': 'csrf1@example.com', 'a.password': 'Csrf-pass-1234' }), status: 403 },
  { group: 'Cross-site', kind: 'forgotten-password form', send: crossSite('/anon/forgot', { context: 'employees', uniqueId: 'bob' }), status: 403 },
  { group: 'Cross-site', kind: 'config: end a session', send: crossSite('/config/sessions/end', { handle: 'x' }, (t) => t.system), status: 403 },
  { group: 'Cross-site', kind: 'config: reload', send: crossSite('/config/reload', {}, (t) => t.system), status: 403 },
  // Sessions and methods
  { group: 'Sessions', kind: 'a forged session cookie', send: (t) => http(`${subjects(t)}/bob`, { headers: { cookie: `SVCSESSIONID=${'A'.repeat(43)}` } }), status: 401, code: 'session_expired' },
  { group: 'Sessions', kind: 'a cookie of the wrong length', send: (t) => http(`${subjects(t)}/bob`, { headers: { cookie: 'SVCSESSIONID=x' } }), status: 401 },
  { group: 'Methods', kind: 'an unknown method on a subject', send: (t) => http(`${subjects(t)}/bob`, { method: 'PATCH', headers: { cookie: t.admin } }), status: 405, code: 'method_not_allowed' },
  { group: 'Methods', kind: 'TRACE', send: (t) => raw(t, [`TRACE ${t.root}/resources/session HTTP/1.1`, 'Host: x', 'Connection: close']), status: [400, 401, 404, 405] },
  // Smuggling shapes sent straight to the core
  { group: 'Smuggling', kind: 'Content-Length and Transfer-Encoding together', send: (t) => raw(t, [`POST ${t.root}/resources/contexts/employees/subjects HTTP/1.1`, 'Host: x', `Cookie: ${t.admin}`, 'Content-Type: application/json', 'Content-Length: 4', 'Transfer-Encoding: chunked', 'Connection: close'], '0\r\n\r\n'), status: 400 },
  { group: 'Smuggling', kind: 'two different Content-Length headers', send: (t) => raw(t, [`POST ${t.root}/resources/contexts/employees/subjects HTTP/1.1`, 'Host: x', `Cookie: ${t.admin}`, 'Content-Type: application/json', 'Content-Length: 2', 'Content-Length: 40', 'Connection: close'], '{}'), status: 400 },
  { group: 'Smuggling', kind: 'an obfuscated Transfer-Encoding', send: (t) => raw(t, [`POST ${t.root}/resources/contexts/employees/subjects HTTP/1.1`, 'Host: x', `Cookie: ${t.admin}`, 'Content-Type: application/json', 'Transfer-Encoding: xchunked', 'Connection: close'], '{}'), status: [400, 501] },
  { group: 'Smuggling', kind: 'a bare LF in headers', send: (t) => raw(t, [`GET ${t.root}/resources/session HTTP/1.1\nX-Smuggle: 1`, 'Host: x', 'Connection: close']), status: [200, 400] },
  // SOAP (SPEC 13): a fault's HTTP status is its problem's, the problem code in the detail
  { group: 'SOAP', kind: 'external entity (XXE) in an envelope', send: (t) => soapCall(t, `<!DOCTYPE e [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${soapEnvelope(soapCreate('&xxe;'))}`), status: 400, code: 'malformed_body' },
  { group: 'SOAP', kind: 'billion laughs in an envelope', send: (t) => soapCall(t, BILLION_LAUGHS.replace('<subject><uniqueId>&lol3;</uniqueId></subject>', soapEnvelope(soapCreate('&lol3;')))), status: 400, code: 'malformed_body' },
  { group: 'SOAP', kind: 'an undeclared entity reference (&nbsp;) in an envelope', send: (t) => soapCall(t, soapEnvelope(soapCreate('m&nbsp;@example.com'))), status: 400, code: 'malformed_body' },
  { group: 'SOAP', kind: 'a SOAP 1.2 envelope sent as SOAP 1.1', send: (t) => soapCall(t, soapEnvelope(SOAP_DELETE, 'http://www.w3.org/2003/05/soap-envelope')), status: 400, code: 'malformed_body', check: (o) => expect(o.body).toContain('VersionMismatch') },
  { group: 'SOAP', kind: 'an operation in a foreign namespace', send: (t) => soapCall(t, soapEnvelope(SOAP_DELETE.replace(SOAP_NS, 'urn:svc:soap:v2'))), status: 400, code: 'invalid_request' },
  { group: 'SOAP', kind: 'an envelope over body.limit', send: (t) => soapCall(t, soapEnvelope(soapCreate('x'.repeat(2_000_000)))), status: 413, code: 'payload_too_large' },
  { group: 'SOAP', kind: 'a form post to the service (415)', send: (t) => soapCall(t, `x=${encodeURIComponent(soapEnvelope(SOAP_DELETE))}`, 'application/x-www-form-urlencoded'), status: 415, code: 'unsupported_media_type' },
  // Issue 24: these were 500 soap:Server with a stack in the log, where REST answered 413, 415 and 400.
  { group: 'SOAP', kind: 'a chunked envelope over body.limit', send: (t) => raw(t, [`POST ${t.root}/services/SubjectService HTTP/1.1`, 'Host: x', `Cookie: ${t.admin}`, 'Content-Type: text/xml; charset=utf-8', 'Transfer-Encoding: chunked', 'Connection: close'], chunked(2 * 1024 * 1024)), status: 413, check: (o) => expect(o.body).toMatch(/soap:Client[\s\S]*payload_too_large/) },
  { group: 'SOAP', kind: 'an envelope with Content-Encoding: zstd', send: (t) => soapCall(t, soapEnvelope(SOAP_DELETE), undefined, { 'content-encoding': 'zstd' }), status: 415, code: 'unsupported_media_type' },
  { group: 'SOAP', kind: 'an envelope marked deflate that is not', send: (t) => soapCall(t, soapEnvelope(SOAP_DELETE), undefined, { 'content-encoding': 'deflate' }), status: 400, code: 'malformed_body' },
];

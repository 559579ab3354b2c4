/**
 * Random and mutated HTTP requests as raw bytes (a client library would refuse to send many of
 * them), for the fuzzers over the network. A request is built from a route template with hostile
 * segment text, random query parameters, headers and bodies, and then, sometimes, edited byte-wise.
 * Content-Length is always recomputed, so a request is complete and any wait is the server's fault.
 */
import fc from 'fast-check';

export interface Wire {
  method: string;
  path: string;
  headers: [string, string][];
  body: string;
}

/** Text that has broken parsers before: metacharacters of SQL, LDAP, paths, filters, XML, JSON. */
const NASTY = ['', '.', '..', '%2e%2e', '%2F', '%00', '%ff', '%c0%af', "'", '"', '*)(|(uid=*', '\\', '__proto__', 'constructor', '<x/>', '{}', '[]', '%', '?', '#', ';', ' ', '\u00e9', '😀', 'bob', 'alice', 'employees', 'customers', 'a'.repeat(300)];
const word = fc.oneof(fc.constantFrom(...NASTY), fc.string({ maxLength: 8 }).map(encodeURIComponent), fc.string({ unit: 'binary-ascii', maxLength: 6 }));

const ROUTES = [
  '/resources/contexts',
  '/resources/contexts/{c}',
  '/resources/contexts/{c}/subjects',
  '/resources/contexts/{c}/subjects/{s}',
  '/resources/contexts/{c}/subjects/{s}/password',
  '/resources/contexts/{c}/subjects/{s}/lockout',
  '/resources/authz/{c}/subjects',
  '/resources/authz/{c}/subjects/{s}',
  '/resources/session',
  '/resources/sessioninfo',
  '/access/v1/evaluation',
  '/access/v1/evaluations',
  '/login',
  '/logout',
  '/config',
  '/{c}',
];
const PARAMS = ['isAllowed', 'filter', 'quantity', 'offset', 'attributes', 'sortBy', 'q', 'goto', 'clientid', 'user', 'password', 'clientcred', 'token', 'svcid', 'action', word];
const FILTERS = ['mail eq "x"', 'uniqueId sw "b"', 'not (mail pr)', '(', 'mail eq', 'password eq "x"', 'a or '.repeat(70) + 'b pr'];

const query = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...PARAMS.filter((p): p is string => typeof p === 'string')), word), fc.oneof(word, fc.constantFrom('READ', 'UPDATE', 'DELETE', '-1', '1e9', '0', ...FILTERS.map(encodeURIComponent)))), { maxLength: 3 })
  .map((pairs) => (pairs.length ? '?' + pairs.map(([k, v]) => `${k}=${v}`).join('&') : ''));

const jsonBody = fc.oneof(
  fc.json({ maxDepth: 3 }),
  fc.record({ uniqueId: word, attributes: fc.dictionary(fc.constantFrom('mail', 'givenName', 'sn', 'password', 'roles', '__proto__', 'x'), fc.oneof(word, fc.array(word, { maxLength: 2 }), fc.constant(null))) }).map((o) => JSON.stringify(o)),
  fc.record({ subject: fc.record({ type: fc.constantFrom('user', 'x'), id: word }), action: fc.record({ name: fc.constantFrom('READ', 'UPDATE', 'x') }), resource: fc.record({ type: fc.constantFrom('subject', 'x'), id: word }) }).map((o) => JSON.stringify(o)),
);
const xmlBody = fc.tuple(word, word).map(([a, b]) => `<?xml version="1.0"?><subject><uniqueId>${a}</uniqueId><attributes><mail>${b}</mail></attributes></subject>`);
const formBody = fc.array(fc.tuple(fc.constantFrom('user', 'password', 'clientid', 'goto', 'clientcred', 'token', 'answer'), word), { maxLength: 4 }).map((p) => p.map(([k, v]) => `${k}=${v}`).join('&'));

const CONTENT_TYPES = ['application/json', 'application/xml', 'application/x-www-form-urlencoded', 'text/plain', 'application/json; charset=latin1', 'multipart/form-data; boundary=x', ''];
const ACCEPTS = ['application/json', 'application/xml', 'text/html', '*/*', 'application/problem+xml', 'image/png', ''];

/** A request shaped like a real one; `cookies` are the sessions it may carry. */
export function request(prefix: string, cookies: string[]): fc.Arbitrary<Wire> {
  return fc
    .record({
      method: fc.constantFrom('GET', 'GET', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE'),
      route: fc.constantFrom(...ROUTES),
      context: fc.oneof(fc.constantFrom('employees', 'customers'), word),
      subject: fc.oneof(fc.constantFrom('bob', 'alice', 'fuzzed'), word),
      query,
      cookie: fc.option(fc.oneof(fc.constantFrom(...cookies), word.map((w) => `SVCSESSIONID=${w}`)), { nil: undefined }),
      contentType: fc.constantFrom(...CONTENT_TYPES),
      accept: fc.constantFrom(...ACCEPTS),
      origin: fc.option(fc.constantFrom('https://evil.example', 'null'), { nil: undefined }),
      body: fc.oneof(fc.constant(''), jsonBody, xmlBody, formBody, fc.string({ unit: 'binary', maxLength: 40 })),
    })
    .map((r) => {
      const path = prefix + r.route.replace('{c}', r.context).replace('{s}', r.subject) + r.query;
      const headers: [string, string][] = [];
      if (r.cookie) headers.push(['Cookie', r.cookie]);
      if (r.contentType) headers.push(['Content-Type', r.contentType]);
      if (r.accept) headers.push(['Accept', r.accept]);
      if (r.origin) headers.push(['Origin', r.origin]);
      return { method: r.method, path, headers, body: r.body };
    });
}

export type Edit = { at: number; cut: number; insert: string };
/** Up to three byte edits of the head (method, path, headers), never of the framing we add after. */
export const edits = fc.array(fc.record({ at: fc.nat(), cut: fc.nat({ max: 3 }), insert: fc.string({ unit: 'binary-ascii', maxLength: 3 }) }), { maxLength: 3 });

/** The bytes of `wire`, with `mutations` applied to its head, and its own Content-Length. */
export function toBytes(wire: Wire, host: string, mutations: Edit[] = [], extraHeaders: [string, string][] = []): Buffer {
  let head = `${wire.method} ${wire.path} HTTP/1.1\r\n` + [...wire.headers, ...extraHeaders].map(([k, v]) => `${k}: ${v}\r\n`).join('');
  for (const m of mutations) {
    const at = m.at % (head.length + 1);
    head = head.slice(0, at) + m.insert + head.slice(at + m.cut);
  }
  // A body never counts bytes the edits could have lost: Content-Length comes last, from the body.
  if (!head.endsWith('\r\n')) head += '\r\n';
  const body = Buffer.from(wire.body, 'utf8');
  return Buffer.concat([Buffer.from(`${head}Host: ${host}\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`, 'latin1'), body]);
}

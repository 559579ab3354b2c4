/**
 * Two builds of the core answer the same requests alike (issue 26: a restructuring of the request
 * path changes no behaviour). Starts this build's core and another build's (SVC_BENCH_VERSUS, a built
 * checkout), each as bench/servers/core.js does, sends every request of a battery (each route ×
 * methods × sessions × check forms × hostile variants) to both, and prints every difference in
 * status, the headers a client reads, and the body (request ids, handles and times masked).
 *
 *   SVC_BENCH_VERSUS=/tmp/before node dist/bench/differential.js
 *
 * Exit status 1 when any answer differs. A tool for a change's author, not a test: CI has one build.
 */
import { join, resolve } from 'node:path';
import type { CoreReady } from './servers/core-shared';
import { spawnChild } from './lib/child';

interface Probe {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  who?: 'bob' | 'alice';
}

const HEADERS = ['content-type', 'allow', 'www-authenticate', 'location', 'x-svc-decision', 'etag', 'cache-control', 'vary', 'retry-after', 'access-control-allow-origin'];

function battery(): Probe[] {
  const probes: Probe[] = [];
  const paths = [
    '/svc',
    '/svc/',
    '/svc/login',
    '/svc/login/',
    '/svc/logout',
    '/svc/anon/login-error',
    '/svc/anon/register',
    '/svc/anon/register?context=customers',
    '/svc/anon/register?context=nope',
    '/svc/anon/forgot',
    '/svc/anon/other',
    '/svc/access/v1/evaluation',
    '/svc/access/v1/evaluations',
    '/svc/config',
    '/svc/config/',
    '/svc/config/reload',
    '/svc/config/sessions/end',
    '/svc/config/other',
    '/svc/services/SubjectService',
    '/svc/services/SubjectService?wsdl',
    '/svc/nothing',
    '/nothing',
    '/health',
    '/ready',
    '/svcx/contexts',
    '/SVC/contexts',
  ];
  for (const mount of ['/svc/resources', '/svc']) {
    paths.push(
      `${mount}/contexts`,
      `${mount}/contexts/employees`,
      `${mount}/contexts/nope`,
      `${mount}/contexts/bad%20id`,
      `${mount}/contexts/employees/subjects`,
      `${mount}/contexts/employees/subjects?search=b`,
      `${mount}/contexts/employees/subjects?quantity=x`,
      `${mount}/contexts/employees/subjects/bob`,
      `${mount}/contexts/employees/subjects/alice`,
      `${mount}/contexts/employees/subjects/nobody`,
      `${mount}/contexts/employees/subjects/bo%2Fb`,
      `${mount}/contexts/employees/subjects/`,
      `${mount}/contexts/employees/subjects/bob/`,
      `${mount}/contexts/employees/subjects/bob/password`,
      `${mount}/contexts/employees/subjects/bob/lockout`,
      `${mount}/contexts/employees/subjects/bob/password/forgot`,
      `${mount}/contexts/employees/subjects/bob/other`,
      `${mount}/authz/employees/subjects`,
      `${mount}/authz/employees/subjects/bob`,
      `${mount}/authz/nope/subjects/bob`,
      `${mount}/session`,
      `${mount}/sessioninfo`,
    );
  }
  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'];
  const variants: Array<Pick<Probe, 'headers'> & { query?: string }> = [
    {},
    { headers: { accept: 'application/xml' } },
    { headers: { accept: 'text/html' } },
    { headers: { accept: 'image/png' } },
    { query: 'isAllowed=READ' },
    { query: 'isallowed=UPDATE' },
    { query: 'isAllowed[]=READ' },
    { query: 'isAllowed=FROB' },
    { headers: { 'x-operation': 'READ' } },
    { headers: { 'x-operation': 'DELETE' } },
    { headers: { origin: 'https://evil.example' } },
  ];
  for (const path of paths) {
    for (const method of methods) {
      for (const variant of variants) {
        for (const who of [undefined, 'bob', 'alice'] as const) {
          const withQuery = variant.query ? `${path}${path.includes('?') ? '&' : '?'}${variant.query}` : path;
          probes.push({ method, path: withQuery, headers: variant.headers, who });
        }
      }
    }
  }
  // Bodies: a subject update, a malformed one, a login, an evaluation, a SOAP call.
  const bodies: Probe[] = [
    { method: 'PUT', path: '/svc/resources/contexts/employees/subjects/bob', headers: { 'content-type': 'application/json' }, body: '{"subject":{"attributes":{"givenName":"Bob"}}}' },
    { method: 'PUT', path: '/svc/resources/contexts/employees/subjects/bob', headers: { 'content-type': 'application/json' }, body: '{"subject":' },
    { method: 'PUT', path: '/svc/resources/contexts/employees/subjects/bob', headers: { 'content-type': 'text/plain' }, body: 'x' },
    { method: 'POST', path: '/svc/resources/contexts/employees/subjects', headers: { 'content-type': 'application/json' }, body: '{"subject":{"uniqueId":"x","attributes":{}}}' },
    { method: 'POST', path: '/svc/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'clientid=svc-web&user=bob&password=wrong' },
    { method: 'POST', path: '/svc/login', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, body: 'clientid=svc-web&user=bob&password=wrong' },
    { method: 'POST', path: '/svc/login?password=x', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'user=bob' },
    { method: 'POST', path: '/svc/login', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' }, body: 'user=bob' },
    { method: 'POST', path: '/svc/access/v1/evaluation', headers: { 'content-type': 'application/json' }, body: '{"subject":{"type":"user","id":"employees/bob"},"action":{"name":"READ"},"resource":{"type":"subject","id":"employees/bob"}}' },
    { method: 'POST', path: '/svc/access/v1/evaluations', headers: { 'content-type': 'application/json' }, body: '{"evaluations":[]}' },
    { method: 'POST', path: '/svc/access/v1/evaluation', headers: { 'content-type': 'application/json' }, body: '[' },
    { method: 'POST', path: '/svc/anon/register', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, body: 'context=customers&uniqueId=' },
    { method: 'POST', path: '/svc/anon/forgot', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, body: 'step=id&id=bob' },
    { method: 'PUT', path: '/svc/contexts/employees/subjects/bob/password/forgot', headers: { 'content-type': 'application/json' }, body: '{"answers":["a"]}' },
    { method: 'PUT', path: '/svc/contexts/employees/subjects/bob/password', headers: { 'content-type': 'application/json' }, body: '{"oldPassword":"a"}' },
    { method: 'POST', path: '/svc/config/sessions/end', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'handle=x' },
    {
      method: 'POST',
      path: '/svc/services/SubjectService',
      headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '"urn:svc:subject-service#getSession"' },
      body: '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><getSession xmlns="urn:svc:subject-service"/></s:Body></s:Envelope>',
    },
    { method: 'POST', path: '/svc/services/SubjectService', headers: { 'content-type': 'application/json' }, body: '{}' },
  ];
  for (const probe of bodies) for (const who of [undefined, 'bob', 'alice'] as const) probes.push({ ...probe, who });
  return probes;
}

/** The parts of an answer that must be equal, with what differs per server or per request masked. */
async function answerOf(ready: CoreReady, probe: Probe): Promise<string> {
  const headers: Record<string, string> = { ...probe.headers };
  if (probe.who) headers.cookie = `${ready.cookieName}=${ready.cookies[probe.who]}`;
  let response: Response;
  try {
    response = await fetch(`${ready.url}${probe.path}`, { method: probe.method, headers, body: probe.body, redirect: 'manual' });
  } catch (error) {
    return `fetch failed: ${(error as Error).message}`;
  }
  const body = (await response.text())
    .replace(new RegExp(ready.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g'), 'URL')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UUID')
    .replace(/"(handle|created|lastAccess|expires|instance|uniqueId)":\s*("[^"]*"|\d+)/g, '"$1":X')
    .replace(/<(handle|created|lastAccess|uniqueId)>[^<]*</g, '<$1>X<')
    .replace(/name="csrf"[^>]*/g, 'csrf')
    .replace(/svc_[a-z_]+\{[^}]*\} [0-9.e+-]+/g, 'METRIC');
  const shown = HEADERS.map((name) => `${name}: ${(response.headers.get(name) ?? '').replace(ready.url, 'URL')}`);
  const cookies = response.headers.getSetCookie().map((cookie) => cookie.replace(/=[^;]*/, '=V'));
  return [String(response.status), ...shown, `set-cookie: ${cookies.join(' | ')}`, probe.path.includes('/metrics') ? '' : body].join('\n');
}

async function main(): Promise<void> {
  const other = process.env.SVC_BENCH_VERSUS;
  if (!other) throw new Error('set SVC_BENCH_VERSUS to a built checkout of the commit to compare with');
  const before = await spawnChild<CoreReady>('servers/core', [], { dir: join(resolve(other), 'dist', 'bench') });
  const after = await spawnChild<CoreReady>('servers/core', []);
  let differences = 0;
  const probes = battery();
  try {
    for (const probe of probes) {
      // In turn, so that a write (a subject update, a lockout) happens on both before the next probe.
      const a = await answerOf(before.ready, probe);
      const b = await answerOf(after.ready, probe);
      if (a === b) continue;
      differences++;
      process.stdout.write(`\n=== ${probe.method} ${probe.path} ${JSON.stringify(probe.headers ?? {})} as ${probe.who ?? 'nobody'}\n--- before\n${a.slice(0, 1500)}\n--- now\n${b.slice(0, 1500)}\n`);
    }
  } finally {
    await before.stop();
    await after.stop();
  }
  process.stdout.write(`\n${probes.length} requests, ${differences} answered differently\n`);
  process.exitCode = differences ? 1 : 0;
}

void main();

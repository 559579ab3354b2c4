/**
 * SPEC section 4 "Memory": a flood of cookie-less requests to every endpoint that can start a flow
 * (forgotten password over REST on both mounts and as pages, registration over REST and as a page,
 * and the flows' first pages) neither grows the core's memory nor keeps anyone from logging in.
 *
 * The core (bench/servers/core.ts: the demo configuration with its default limits, production
 * password parameters, SQLite) and a gateway run as their own processes, so that the memory measured
 * is the server's alone: the core reports it after full garbage collections on SIGUSR2. The flood
 * comes over raw keep-alive sockets bound to 127.0.0.x client addresses (the core listens on
 * 127.0.0.1, and every 127/8 address reaches it): one address, then several, so the per-address
 * limits meet both shapes. The review's attack was ~97 000 such requests to one endpoint, which filled
 * the session store; then every login answered 503.
 */
import { join } from 'node:path';
import { signPrincipalAssertion } from '../../common/src/assertion/principal-assertion';
import { spawnChild, type RunningChild } from '../../bench/lib/child';
import type { CoreReady, GatewayReady, MemoryReport } from '../../bench/servers/core-shared';
import { BENCH_CLIENT, BENCH_CREDENTIALS, BENCH_PORTAL } from '../../bench/servers/core-shared';
import { flood } from '../helpers/flood';
import { send } from '../helpers/http';
import { rawSend } from '../helpers/tls-http';

/** Requests in the flood (SVC_FLOOD_REQUESTS to change it). */
const TOTAL = Number(process.env.SVC_FLOOD_REQUESTS ?? 100_000);
/** The "several addresses" half of the flood comes from these. */
const SEVERAL = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
/** The compiled servers (npm test builds first). */
const DIST = join(__dirname, '../../dist/bench');

let core: RunningChild<CoreReady>;
let gateway: RunningChild<GatewayReady>;

beforeAll(async () => {
  core = await spawnChild<CoreReady>('servers/core', ['--log', 'silent'], { nodeArgs: ['--expose-gc'], dir: DIST });
  gateway = await spawnChild<GatewayReady>('servers/gateway', ['--core', core.ready.base, '--log', 'silent'], { dir: DIST });
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  await core?.stop();
});

/** The core's memory after full garbage collections. */
async function memory(): Promise<MemoryReport> {
  core.process.kill('SIGUSR2');
  return (await core.nextLine()) as MemoryReport;
}

/**
 * Request `i` of the flood: cookie-less, each to one of the endpoints that can start a flow, with a
 * new name each time (a new name is what an attacker uses to make the server keep something new).
 */
function floodRequest(host: string, base: string): (i: number) => Buffer {
  const raw = (method: string, path: string, headers: Record<string, string>, body = '') =>
    Buffer.from(
      `${method} ${base}${path} HTTP/1.1\r\nHost: ${host}\r\n` +
        Object.entries({ ...headers, ...(body ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}) })
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('') +
        `\r\n${body}`,
    );
  const json = { Accept: 'application/json', 'Content-Type': 'application/json' };
  const page = { Accept: 'text/html', 'Content-Type': 'application/x-www-form-urlencoded', Origin: `http://${host}` };
  const registrant = (id: string) => ({ uniqueId: id, attributes: { mail: `${id}@example.org`, givenName: 'Flo', familyName: 'Od', password: `Flood-pass-${id}` } });
  const endpoints = [
    (i: number) => raw('GET', `/resources/contexts/employees/subjects/x${i}/password/forgot`, { Accept: 'application/json' }),
    (i: number) => raw('GET', `/contexts/employees/subjects/y${i}/password/forgot`, { Accept: 'application/json' }),
    (i: number) => raw('POST', '/anon/forgot', page, new URLSearchParams({ step: 'id', context: 'employees', id: `z${i}` }).toString()),
    (i: number) => raw('POST', '/resources/contexts/customers/subjects', json, JSON.stringify({ subject: registrant(`r${i}`) })),
    (i: number) =>
      raw('POST', '/anon/register', page, new URLSearchParams({ context: 'customers', uniqueId: `p${i}`, 'a.mail': `p${i}@example.org`, 'a.givenName': 'Flo', 'a.familyName': 'Od', 'a.password': `Flood-pass-p${i}` }).toString()),
    (i: number) => raw('GET', i % 2 ? '/anon/forgot' : '/anon/register', { Accept: 'text/html' }),
  ];
  return (i) => endpoints[i % endpoints.length](i);
}

/** Floods from each address in turn: `total` requests shared among them. */
async function floodFrom(addresses: string[], total: number, offset: number): Promise<Map<number, number>> {
  const { hostname, port } = new URL(core.ready.url);
  const base = new URL(core.ready.base).pathname;
  const request = floodRequest(`${hostname}:${port}`, base);
  const all = new Map<number, number>();
  const share = Math.ceil(total / addresses.length);
  await Promise.all(
    addresses.map(async (localAddress, n) => {
      const statuses = await flood({ host: hostname, port: Number(port), localAddress, connections: 4, total: share, request: (i) => request(offset + n * share + i) });
      for (const [status, count] of statuses) all.set(status, (all.get(status) ?? 0) + count);
    }),
  );
  return all;
}

async function bobLogsIn(): Promise<string> {
  const answer = await send(`${core.ready.base}/login`, {
    form: { clientid: BENCH_CLIENT, user: 'bob', password: BENCH_CREDENTIALS.users.bob },
    headers: { accept: 'application/json' },
  });
  expect(answer.status).toBe(200);
  expect(answer.json?.session).toMatchObject({ type: 'USER', principal: { uniqueId: 'bob', contextId: 'employees' } });
  return answer.cookie!;
}

/** bob through the gateway: the gateway logs in to the core as bob (a new USER session there). */
async function bobThroughGateway(): Promise<Record<string, unknown>> {
  const path = `${gateway.ready.root}/api/session`;
  const assertion = signPrincipalAssertion({ portalId: BENCH_PORTAL, secret: gateway.ready.secret, user: { contextId: 'employees', uniqueId: 'bob' }, visitor: `flood-${Date.now()}`, method: 'GET', pathAndQuery: path });
  const answer = await send(`${gateway.ready.url}${path}`, { headers: { accept: 'application/json', 'x-svc-principal': assertion } });
  expect(answer.status).toBe(200);
  return answer.json?.session as Record<string, unknown>;
}

test(`${TOTAL} cookie-less flow starts from one address and from several: memory stays within 10 %, and bob logs in at once`, async () => {
  // Warm up (code compiled, pools and caches at their working size) from an address of its own.
  await floodFrom(['127.0.0.9'], Math.ceil(TOTAL / 10), 10 * TOTAL);
  const before = await memory();

  const one = await floodFrom(['127.0.0.1'], TOTAL / 2, 0);
  const several = await floodFrom(SEVERAL, TOTAL / 2, TOTAL);
  const after = await memory();

  console.log(
    `flood: one address ${JSON.stringify(Object.fromEntries(one))}, several ${JSON.stringify(Object.fromEntries(several))}; ` +
      `heap ${mib(before.heapUsed)} -> ${mib(after.heapUsed)} MiB, rss ${mib(before.rss)} -> ${mib(after.rss)} MiB`,
  );
  expect(after.heapUsed).toBeLessThanOrEqual(before.heapUsed * 1.1);
  expect(after.rss).toBeLessThanOrEqual(before.rss * 1.1);
  // Nothing failed for want of room; past the first few, the per-address limits refused the flood.
  for (const statuses of [one, several]) {
    expect(statuses.get(503)).toBeUndefined();
    expect(statuses.get(500)).toBeUndefined();
    if (TOTAL >= 10_000) expect(statuses.get(429)).toBeGreaterThan(0.6 * [...statuses.values()].reduce((a, b) => a + b, 0));
  }

  await bobLogsIn();
  expect(await bobThroughGateway()).toMatchObject({ type: 'USER', principal: { uniqueId: 'bob', contextId: 'employees' } });
  // The flows still work for a visitor from an address that did not flood.
  const questions = await rawSend(`${core.ready.base}/resources/contexts/employees/subjects/BOB/password/forgot`, { localAddress: '127.0.0.20' });
  expect(questions.status).toBe(200);
  expect(questions.json?.questions).toEqual(['What was the name of your first pet?', 'In which city were you born?']);
}, 600_000);

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

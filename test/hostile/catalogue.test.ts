/**
 * Runs the hostile-input catalogue (core-cases.ts) against a real core on port 0 with a real SQLite
 * file. Every row: the expected refusal (a 4xx problem, or the page's equivalent), no stack trace or
 * parser internals in the answer, the process still healthy, and the store byte-for-byte unchanged.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningGateway } from '../../gateway/src/index';
import { dumpStore, sessionCookies } from '../authorization/helpers';
import { recordCoreRequests, startTestGateway, type SeenRequest } from '../gateway/gateway-helpers';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { CORE_CASES, type Target } from './core-cases';
import { GATEWAY_CASES, type GatewayTarget } from './gateway-cases';

let server: TestServer;
let gateway: RunningGateway;
let seen: SeenRequest[];
let target: Target;
let gatewayTarget: GatewayTarget;

beforeAll(async () => {
  server = await startTestServer();
  seen = recordCoreRequests(server);
  gateway = await startTestGateway([server.baseUrl]);
  const who = await sessionCookies(server);
  target = { url: server.url, base: server.baseUrl, root: new URL(server.baseUrl).pathname, admin: who.ALICE, bob: who.BOB, system: who.SYSTEM };
  gatewayTarget = { url: gateway.url, seenByCore: () => seen };
});
afterAll(async () => {
  await gateway.close();
  await server.stop();
});

const LEAKS = /\n\s+at [\w.<]|Maximum call stack|SECURITY|prototype pollution|Unexpected token|SQLITE|internal_error/;

test('the catalogue has at least 60 kinds, each named once', () => {
  const names = [...CORE_CASES, ...GATEWAY_CASES].map((c) => `${c.group}: ${c.kind}`);
  expect(new Set(names).size).toBe(names.length);
  expect(names.length).toBeGreaterThanOrEqual(60);
});

test('docs/security.md lists every kind under its group, and the count', () => {
  const security = readFileSync(join(__dirname, '..', '..', 'docs', 'security.md'), 'utf8');
  const block = /<details><summary>The catalogue's (\d+) kinds[\s\S]*?<\/details>/.exec(security);
  const listed = new Map(
    [...(block?.[0] ?? '').matchAll(/^- \*\*(.+?)\*\* \(\d+\): (.*)$/gm)].map(([, group, kinds]) => [group, kinds.split('; ').map((kind) => kind.replace(/^`(.*)`$/, '$1'))]),
  );
  const cases = [...CORE_CASES.map((c) => [c.group, c.kind]), ...GATEWAY_CASES.map((c) => [`gateway: ${c.group}`, c.kind])];
  const expected = new Map<string, string[]>();
  for (const [group, kind] of cases) expected.set(group, [...(expected.get(group) ?? []), kind]);
  expect(listed).toEqual(expected);
  expect(Number(block?.[1])).toBe(cases.length);
});

describe.each([...new Set(CORE_CASES.map((c) => c.group))])('%s', (group) => {
  test.each(CORE_CASES.filter((c) => c.group === group).map((c) => [c.kind, c] as const))('%s', async (_kind, row) => {
    const before = await dumpStore(server);
    const outcome = await row.send(target);
    const statuses = [row.status].flat();
    // One comparison, so a failure shows the status, the code and the body together.
    expect({ status: statuses.includes(outcome.status), code: row.code ? outcome.code : undefined, body: outcome.body.slice(0, 300) }).toEqual({ status: true, code: row.code, body: expect.any(String) });
    expect(outcome.body).not.toMatch(LEAKS);
    if (outcome.status >= 400 && outcome.body.startsWith('{')) expect(outcome.code).toEqual(expect.any(String));
    row.check?.(outcome, target);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect(await dumpStore(server)).toBe(before);
  });
});

describe.each([...new Set(GATEWAY_CASES.map((c) => `gateway: ${c.group}`))])('%s', (group) => {
  test.each(GATEWAY_CASES.filter((c) => `gateway: ${c.group}` === group).map((c) => [c.kind, c] as const))('%s', async (_kind, row) => {
    const before = await dumpStore(server);
    seen.length = 0;
    const outcome = await row.send(gatewayTarget);
    const statuses = [row.status].flat();
    expect({ status: statuses.includes(outcome.status), code: row.code ? outcome.code : undefined, body: outcome.body.slice(0, 300) }).toEqual({ status: true, code: row.code, body: expect.any(String) });
    expect(outcome.body).not.toMatch(LEAKS);
    if (!row.reachesCore) expect(seen).toEqual([]);
    row.check?.(outcome, gatewayTarget);
    for (const url of [`${gateway.url}/health`, `${server.url}/health`]) expect((await fetch(url)).status).toBe(200);
    expect(await dumpStore(server)).toBe(before);
  });
});

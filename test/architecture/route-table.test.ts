/**
 * Issue 26: the core has one declared route table, every route a list of named steps, and
 * docs/architecture.md shows that table as it is (between its `routes` markers).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { coreRoutes, describeRoutes } from '../../server/src/http/route-table';
import { servicesOf } from '../../server/src/http/services';
import { startTestServer, type TestServer } from '../helpers/core-server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ seed: false });
});
afterAll(() => server.stop());

const routes = () => coreRoutes(servicesOf(server.core));

test('every route is a path and named steps; every REST path is on both mounts, the resources mount first', () => {
  const all = routes();
  for (const route of all) {
    expect(route.steps.length).toBeGreaterThan(0);
    for (const step of route.steps) expect(step.name).toMatch(/^[a-z][A-Za-z]+$/);
  }
  const alias = all.filter((route) => route.mount === '').map((route) => route.path);
  const resources = all.filter((route) => route.mount === '/resources').map((route) => route.path.slice('/resources'.length));
  expect(resources).toEqual(alias);
  expect(new Set(all.map((route) => `${route.at} ${route.path}`)).size).toBe(all.length);
});

const BLOCK = /(<!-- routes -->\n```text\n)([\s\S]*?)(\n```\n<!-- \/routes -->)/;

/** `SVC_UPDATE_DOCS=1 npx jest test/architecture/route-table.test.ts` writes the listing after a change to the table. */
test('docs/architecture.md lists the table as it is', () => {
  const path = join(__dirname, '..', '..', 'docs', 'architecture.md');
  const doc = readFileSync(path, 'utf8');
  const table = describeRoutes(routes());
  if (process.env.SVC_UPDATE_DOCS === '1') writeFileSync(path, doc.replace(BLOCK, (_all, open: string, _old: string, close: string) => `${open}${table}${close}`));
  expect(BLOCK.exec(readFileSync(path, 'utf8'))?.[2]).toBe(table);
});

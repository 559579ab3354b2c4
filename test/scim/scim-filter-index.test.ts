/**
 * SPEC 14: an identity provider's lookups as the SCIM transport translates them (UserMapping.filter:
 * `userName eq` becomes userName or uniqueId, `emails[type eq "work"].value eq` becomes mail) are still
 * served by indexes on SQLite: every statement the store sends is explained, and none scans.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { provisioned, provisionedSubjects } from '../../bench/lib/filter-population';
import { buildConfig } from '../../server/src/config/load';
import { parseScimFilter } from '../../server/src/subjects/filter/parse';
import { SqliteSubjectStore } from '../../server/src/subjects/sqlite-store';
import { UserMapping } from '../../server/src/scim/users';
import { testConfigDocument } from '../helpers/core-server';
import { recordStatements } from '../helpers/sqlite-statements';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { TEST_HASH } from '../helpers/core-server';

const CONTEXT = 'employees';
const TARGET = 4242;

let dir: string;
let store: SqliteSubjectStore;
let db: Database.Database;
let mapping: UserMapping;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-scim-filter-index-'));
  store = new SqliteSubjectStore(join(dir, 'svc.db'));
  for (let start = 0; start < 20_000; start += 5_000) await store.importSubjects(CONTEXT, provisionedSubjects(start, start + 5_000), { replace: false });
  db = (store as unknown as { db: Database.Database }).db;
  const config = buildConfig(await testConfigDocument(dir, new PasswordHasher({ ...TEST_HASH, precomputeDummy: false })), {});
  mapping = new UserMapping(config.contexts.find((c) => c.id === CONTEXT)!, config.scim.attributes);
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const p = provisioned(TARGET);
test.each([
  ['userName eq', `userName eq "${p.userName.toUpperCase()}"`],
  ['externalId eq', `externalId eq "${p.externalId}"`],
  ['emails value path', `emails[type eq "work"].value eq "${p.mail.toUpperCase()}"`],
  ['emails.value eq', `emails.value eq "${p.mail}"`],
])('%s: %s', async (_label, text) => {
  const { result: page, seen } = await recordStatements(db, () => store.search(CONTEXT, { filter: mapping.filter(parseScimFilter(text), { nameOf: () => undefined }), offset: 0, quantity: 25 }));
  expect(page.results.map((s) => s.uniqueId)).toEqual([p.uniqueId]);
  expect(seen.length).toBeGreaterThanOrEqual(2);
  for (const { sql, params } of seen) {
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((row) => row.detail);
    expect(plan.filter((detail) => /^SCAN /.test(detail))).toEqual([]);
    // Probes by value, never a range over every value of an attribute (what a presence test reads).
    expect(plan.filter((detail) => /value_lc[<>]/.test(detail))).toEqual([]);
    expect(plan).toEqual(expect.arrayContaining([expect.stringMatching(/INDEX subject_values_lookup \(context=\? AND name=\? AND value_lc=\?\)/)]));
  }
});

test("a context's distinct roles (its groups) are a loose scan of the values' index: one probe per role, no read of every subject's", async () => {
  const sql = (store as unknown as { statements: { distinct: { source: string } } }).statements.distinct.source;
  const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ context: CONTEXT, name: 'roles' }) as Array<{ detail: string }>).map((row) => row.detail);
  expect(plan.filter((detail) => /SCAN subject_values|SCAN subjects/.test(detail))).toEqual([]);
  expect(plan).toEqual(expect.arrayContaining([expect.stringMatching(/subject_values_lookup \(context=\? AND name=\? AND value_lc>\?\)/)]));
  expect(await store.distinctValues(CONTEXT, 'roles')).toEqual([...new Set(provisionedSubjects(0, 20_000).flatMap((s) => (s.write.attributes.roles as string[] | undefined) ?? []).map((r) => r.toLowerCase()))].sort());
});

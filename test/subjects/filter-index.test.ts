/**
 * SPEC 14: an identity provider's `userName eq`, `externalId eq` and `emails.value eq` (svc's `mail`)
 * are each served by an index on SQLite and PostgreSQL. The statements the real stores send for a
 * SEARCH with such a filter (recorded as they are sent, with their parameters) are explained by the
 * database itself: every one reads subject_values through subject_values_lookup (context, name,
 * value_lc) and the subjects by their primary key, and none scans the context. The cost that follows
 * from it (100 000 subjects against 10 000) is bench/scenarios/scim-filter.ts's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { Pool } from 'pg';
import { providerLookups, provisionedSubjects } from '../../bench/lib/filter-population';
import { DEFAULT_POSTGRES } from '../../server/src/config/defaults';
import { parseFilter } from '../../server/src/subjects/filter/parse';
import { PostgresSubjectStore } from '../../server/src/subjects/postgres-store';
import { SqliteSubjectStore } from '../../server/src/subjects/sqlite-store';
import type { SubjectStore } from '../../server/src/subjects/store';
import { adminQuery, suiteSchemas } from '../helpers/postgres';
import { describeWithService, postgresRequirement } from '../helpers/services';
import { recordStatements, type RanStatement } from '../helpers/sqlite-statements';

const CONTEXT = 'employees';
/** Enough subjects that PostgreSQL's planner, with statistics, has a real choice between scans. */
const SUBJECTS = 20_000;
const TARGET = 4242;

async function seed(store: SubjectStore): Promise<void> {
  for (let start = 0; start < SUBJECTS; start += 5_000) await store.importSubjects(CONTEXT, provisionedSubjects(start, start + 5_000), { replace: false });
  // Another context's subjects share the tables (and the index's leading column).
  await store.importSubjects('customers', provisionedSubjects(0, 2_000), { replace: false });
}

/** The search of one lookup, through the store as the service calls it: the first page of 25. */
async function lookup(store: SubjectStore, filter: string): Promise<string[]> {
  const page = await store.search(CONTEXT, { filter: parseFilter(filter, () => true), offset: 0, quantity: 25 });
  return page.results.map((s) => s.uniqueId);
}

describe('SQLite: each lookup is served by subject_values_lookup', () => {
  let dir: string;
  let store: SqliteSubjectStore;
  let db: Database.Database;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-filter-index-'));
    store = new SqliteSubjectStore(join(dir, 'svc.db'));
    await seed(store);
    db = (store as unknown as { db: Database.Database }).db;
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The statements (text and parameters) the store runs during `run`, as better-sqlite3 is asked. */
  async function recorded(run: () => Promise<unknown>): Promise<RanStatement[]> {
    return (await recordStatements(db, run)).seen;
  }

  test.each(providerLookups(TARGET))('%s: %s', async (_label, filter) => {
    let found: string[] = [];
    const statements = await recorded(async () => (found = await lookup(store, filter)));
    expect(found).toEqual(['u004242']);
    expect(statements.length).toBeGreaterThanOrEqual(2); // the count and the page
    for (const { sql, params } of statements) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((row) => row.detail);
      expect(plan).toEqual(expect.arrayContaining([expect.stringMatching(/^SEARCH v USING (COVERING )?INDEX subject_values_lookup \(context=\? AND name=\? AND value_lc=\?\)$/)]));
      expect(plan).toEqual(expect.arrayContaining([expect.stringMatching(/^SEARCH s USING PRIMARY KEY \(context=\? AND id=\?\)$/)]));
      expect(plan.filter((detail) => /^SCAN /.test(detail))).toEqual([]);
    }
  });
});

const postgres = postgresRequirement();

describeWithService(postgres, 'PostgreSQL: each lookup is served by subject_values_lookup', () => {
  const schemas = suiteSchemas('filter_index');
  let store: PostgresSubjectStore;
  let url: string;

  beforeAll(async () => {
    ({ url } = await schemas.create());
    store = new PostgresSubjectStore({ ...DEFAULT_POSTGRES, url });
    await seed(store);
    // What autovacuum would have done by now: the planner's statistics.
    await adminQuery('ANALYZE subjects; ANALYZE subject_values', [], url);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  async function recorded(run: () => Promise<unknown>): Promise<Array<{ text: string; values: unknown[] }>> {
    const seen: Array<{ text: string; values: unknown[] }> = [];
    const pool = (store as unknown as { pool: Pool }).pool;
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: unknown }).query = (text: unknown, values?: unknown[]) => {
      if (typeof text === 'string') seen.push({ text, values: values ?? [] });
      return query(text, values);
    };
    try {
      await run();
    } finally {
      (pool as unknown as { query: unknown }).query = query;
    }
    return seen;
  }

  test.each(providerLookups(TARGET))('%s: %s', async (_label, filter) => {
    let found: string[] = [];
    const statements = await recorded(async () => (found = await lookup(store, filter)));
    expect(found).toEqual(['u004242']);
    expect(statements).toHaveLength(1); // the count and the page in one statement
    for (const { text, values } of statements) {
      const plan = (await adminQuery<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values, url)).map((row) => row['QUERY PLAN']).join('\n');
      // Both halves (the count and the page) probe the index on the value, then the subject's key.
      expect(plan.match(/Index (Only )?Scan using subject_values_lookup on subject_values v/g)).toHaveLength(2);
      expect(plan).toMatch(/Index Cond: \(\(context = 'employees'::text\) AND \(name = '[A-Za-z]+'::text\) AND \(value_lc = '[^']+'::text\)\)/);
      expect(plan).toMatch(/Index Scan using subjects_pkey on subjects s/);
      expect(plan).not.toMatch(/Seq Scan/);
      if (process.env.SVC_SHOW_PLANS) process.stdout.write(`${filter}\n${plan}\n`);
    }
  });
});

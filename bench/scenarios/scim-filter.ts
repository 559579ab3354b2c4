import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminQuery, benchSchema } from '../lib/postgres';
import { DEFAULT_POSTGRES } from '../../server/src/config/defaults';
import { parseFilter } from '../../server/src/subjects/filter/parse';
import { PostgresSubjectStore } from '../../server/src/subjects/postgres-store';
import { SqliteSubjectStore } from '../../server/src/subjects/sqlite-store';
import type { SubjectStore } from '../../server/src/subjects/store';
import { providerLookups, provisionedSubjects } from '../lib/filter-population';
import { Latencies } from '../lib/percentiles';
import { loadRow, type Measurement, type Row, type Scenario, type ScenarioContext } from '../lib/scenario';
import { growthRow } from './search';

type Store = 'sqlite' | 'postgres';
const STORE_NAME: Record<Store, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
const CONTEXT = 'employees';
/** The subjects looked up, every one below the smaller size, in turn (so no single row stays hot). */
const TARGETS = Array.from({ length: 97 }, (_, k) => 100 + k * 101);

interface OpenStore {
  store: SubjectStore;
  analyze(): Promise<void>;
  drop(): Promise<void>;
}

async function openStore(kind: Store): Promise<OpenStore> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-scim-filter-'));
    const store = new SqliteSubjectStore(join(dir, 'svc.db'));
    return { store, analyze: async () => undefined, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = await benchSchema();
  return {
    store: new PostgresSubjectStore({ ...DEFAULT_POSTGRES, url: schema.url }),
    // What autovacuum does after a bulk load, done now rather than whenever it comes round.
    analyze: () => adminQuery(`ANALYZE ${schema.name}.subjects; ANALYZE ${schema.name}.subject_values`),
    drop: schema.drop,
  };
}

/** One lookup after another for `seconds` (the service's path below HTTP: parse, then the store's SEARCH of a page of 25). */
async function measure(store: SubjectStore, lookup: (i: number) => string, seconds: number): Promise<Measurement> {
  const latencies = new Latencies();
  let total = 0;
  let failures = 0;
  const started = process.hrtime.bigint();
  const until = started + BigInt(Math.round(seconds * 1e9));
  for (let k = 0; process.hrtime.bigint() < until; k++) {
    const target = TARGETS[k % TARGETS.length];
    const t0 = process.hrtime.bigint();
    const page = await store.search(CONTEXT, { filter: parseFilter(lookup(target), () => true), offset: 0, quantity: 25 });
    latencies.record(Number(process.hrtime.bigint() - t0) / 1e6);
    total++;
    if (page.total !== 1 || page.results[0]?.uniqueId !== `u${String(target).padStart(6, '0')}`) failures++;
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  return { throughput: (total - failures) / elapsed, ...latencies.summary(), total, failures };
}

async function run(ctx: ScenarioContext, kind: Store, size: number, measured: Map<string, Measurement>): Promise<void> {
  const { store, analyze, drop } = await openStore(kind);
  try {
    const seedStarted = process.hrtime.bigint();
    for (let start = 0; start < size; start += 10_000) await store.importSubjects(CONTEXT, provisionedSubjects(start, Math.min(size, start + 10_000)), { replace: false });
    await analyze();
    ctx.log(`  ${STORE_NAME[kind]}: ${size} subjects imported in ${(Number(process.hrtime.bigint() - seedStarted) / 1e9).toFixed(1)} s`);
    for (const [k, [label]] of providerLookups(0).entries()) {
      const lookup = (i: number) => providerLookups(i)[k][1];
      if (ctx.warmup > 0) await measure(store, lookup, ctx.warmup);
      measured.set(`${label}|${kind}|${size}`, await measure(store, lookup, ctx.duration));
    }
  } finally {
    await store.close();
    await drop();
  }
}

/**
 * SPEC 14's lookups of an identity provider, `userName eq`, `externalId eq` and `emails.value eq`
 * (svc's `mail`), one subject found each time, at 10 000 and 100 000 subjects on SQLite and on
 * PostgreSQL (SVC_BENCH_PG_URL, default the local `test` database, a schema of its own): the
 * service's path below HTTP (the filter parsed, the store's SEARCH of a first page of 25, count
 * included), one lookup after another in this process, so what grows with the population is the
 * store's alone. Both stores at each size in turn, so the machine's drift touches both alike.
 * Target: p50 at 100 000 at most twice p50 at 10 000 (each lookup is served by an index:
 * test/subjects/filter-index.test.ts shows the plans).
 */
export const scimFilter: Scenario = {
  name: 'scim-filter',
  run: async (ctx) => {
    const sizes = ctx.smoke ? [1_000, 10_000] : [10_000, 100_000];
    const measured = new Map<string, Measurement>();
    for (const size of sizes) for (const kind of ['sqlite', 'postgres'] as const) await run(ctx, kind, size, measured);
    const rows: Row[] = [];
    const [small, large] = sizes;
    const at = (size: number) => size.toLocaleString('en-US');
    for (const [label] of providerLookups(0)) {
      for (const kind of ['sqlite', 'postgres'] as const) {
        const a = measured.get(`${label}|${kind}|${small}`)!;
        const b = measured.get(`${label}|${kind}|${large}`)!;
        const unit = 'lookups/s';
        rows.push(loadRow(`store SEARCH ${label} @ ${at(small)} ${STORE_NAME[kind]}`, a, { unit }));
        const growth = { ...growthRow(`store SEARCH ${label} @ ${at(large)} ${STORE_NAME[kind]}`, a, b, small), unit };
        rows.push(growth);
        ctx.log(`  ${label} ${STORE_NAME[kind]}: p50 ${a.p50Ms.toFixed(3)} ms @ ${at(small)}, ${b.p50Ms.toFixed(3)} ms @ ${at(large)}: ×${growth.ratio!.toFixed(2)}`);
      }
    }
    return rows;
  },
};

import { withCore } from '../lib/core';
import { loadRow, type Measurement, type Row, type Scenario } from '../lib/scenario';
import { readAndSearches } from '../lib/subject-loads';
import { growthRow, SEARCH_QUERIES } from './search';

type Store = 'sqlite' | 'postgres';
const STORE_NAME: Record<Store, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
const MIN_READ_RATIO = 0.5;

/**
 * The subject store as the variable (issue 15): READ of bob's own subject and the two SEARCHes of
 * search.ts, on a core over SQLite and a core over PostgreSQL (SVC_BENCH_PG_URL, default the local
 * `test` database, a schema of its own) at 10 000 and 100 000 seeded subjects, both stores at each
 * size in turn so that the machine's drift touches both alike. PostgreSQL runs on the same machine
 * and shares its cores with the server and the load generator.
 * Targets: READ on PostgreSQL ≥ 0.5 × READ on SQLite; SEARCH p50 at 100 000 ≤ 2 × p50 at 10 000.
 */
export const postgres: Scenario = {
  name: 'postgres',
  run: async (ctx) => {
    const sizes = ctx.smoke ? [1_000, 10_000] : [10_000, 100_000];
    const measured = new Map<string, Measurement>();
    const key = (what: string, store: Store, size: number) => `${what}|${store}|${size}`;
    for (const size of sizes) {
      for (const store of ['sqlite', 'postgres'] as const) {
        await withCore({ subjects: size, store }, async (core) => {
          ctx.log(`  ${STORE_NAME[store]}: ${size} subjects seeded in ${core.seedSeconds.toFixed(1)} s`);
          for (const [what, measurement] of await readAndSearches(ctx, core, SEARCH_QUERIES)) measured.set(key(what, store, size), measurement);
        });
      }
    }
    const rows: Row[] = [];
    const at = (size: number) => size.toLocaleString('en-US');
    for (const size of sizes) {
      const sqlite = loadRow(`READ subject (USER, own) @ ${at(size)} SQLite`, measured.get(key('READ', 'sqlite', size))!, {});
      rows.push(sqlite, loadRow(`READ subject (USER, own) @ ${at(size)} PostgreSQL`, measured.get(key('READ', 'postgres', size))!, { reference: sqlite, minRatio: MIN_READ_RATIO }));
    }
    const [small, large] = sizes;
    for (const [label] of SEARCH_QUERIES) {
      for (const store of ['sqlite', 'postgres'] as const) {
        const a = measured.get(key(label, store, small))!;
        const b = measured.get(key(label, store, large))!;
        rows.push(loadRow(`SEARCH ${label} @ ${at(small)} ${STORE_NAME[store]}`, a, {}));
        rows.push(growthRow(`SEARCH ${label} @ ${at(large)} ${STORE_NAME[store]}`, a, b, small));
      }
    }
    return rows;
  },
};

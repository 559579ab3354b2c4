import { withCore } from '../lib/core';
import { loadRow, type Measurement, type Row, type Scenario } from '../lib/scenario';
import { subjectsLoad } from '../lib/subject-loads';
import { seededId } from '../servers/core-shared';

const MAX_GROWTH = 2;

/**
 * The searches (label, query string): one free-text prefix and one filter, selecting the same subjects
 * at every size, and the sorted variant (SPEC 3's sort/order): that prefix by mail descending.
 */
export const SEARCH_QUERIES: Array<[string, string]> = [
  ['free-text prefix', `search=${encodeURIComponent(seededId(40).slice(0, -1))}`],
  ['filter mail eq', `filter=${encodeURIComponent(`mail eq "${seededId(4242)}@example.com"`)}`],
  ['free-text prefix sorted by mail desc', `search=${encodeURIComponent(seededId(40).slice(0, -1))}&sort=mail&order=desc`],
];

/**
 * Reported without a target: the first page of the whole context by mail (what User Admin shows
 * first). The index gives its rows in order, but its `total` counts every subject, which grows with
 * the context on every store (as an unsorted SEARCH of everything does).
 */
const REPORTED_QUERIES: Array<[string, string]> = [['all sorted by mail, first page', 'sort=mail&quantity=25']];

/** The row of the larger size, its p50 against the smaller's: the target is at most MAX_GROWTH times. */
export function growthRow(name: string, small: Measurement, large: Measurement, smallSize: number): Row {
  const ratio = large.p50Ms / small.p50Ms;
  return {
    ...loadRow(name, large, {}),
    ratio,
    against: `p50 @ ${smallSize}`,
    target: `p50 ≤ ${MAX_GROWTH} × p50 @ ${smallSize.toLocaleString('en-US')}`,
    met: ratio <= MAX_GROWTH && small.failures === 0 && large.failures === 0,
  };
}

/**
 * SEARCH by alice (admin) on SQLite at 10 000 and 100 000 seeded subjects: a SCIM filter on `mail`
 * (one hit), a free-text prefix that selects the same ten subjects at both sizes (user00004x), that
 * prefix sorted by mail descending, and (reported) the whole context's first page by mail, with at
 * most 4 connections.
 * Target: p50 at 100 000 at most twice p50 at 10 000.
 */
export const search: Scenario = {
  name: 'search',
  run: async (ctx) => {
    const sizes = ctx.smoke ? [1_000, 10_000] : [10_000, 100_000];
    const queries = [...SEARCH_QUERIES, ...REPORTED_QUERIES];
    // Fewer connections than elsewhere: a slow query under many connections only measures the queue.
    const connections = Math.min(ctx.connections, 4);
    const measured = new Map<string, Measurement>();
    for (const size of sizes) {
      await withCore({ subjects: size }, async (core) => {
        ctx.log(`  ${size} subjects seeded in ${core.seedSeconds.toFixed(1)} s`);
        for (const [label, query] of queries) {
          await core.settle();
          measured.set(`${label}@${size}`, await subjectsLoad(ctx, core, `?${query}`, 'alice', connections));
        }
      });
    }
    const rows: Row[] = [];
    const [small, large] = sizes;
    for (const [label] of queries) {
      const a = measured.get(`${label}@${small}`)!;
      const b = measured.get(`${label}@${large}`)!;
      rows.push(loadRow(`SEARCH ${label} @ ${small.toLocaleString('en-US')}`, a, {}));
      const name = `SEARCH ${label} @ ${large.toLocaleString('en-US')}`;
      rows.push(REPORTED_QUERIES.some(([reported]) => reported === label) ? loadRow(name, b, {}) : growthRow(name, a, b, small));
    }
    return rows;
  },
};

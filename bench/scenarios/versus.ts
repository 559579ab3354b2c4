import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { autocannonLoad } from '../lib/autocannon';
import { withCore, type CoreUnderTest } from '../lib/core';
import { rawLoop } from '../lib/raw-loop';
import type { Measurement, Row, Scenario, ScenarioContext } from '../lib/scenario';

/** The requests a change to the core's request path must not slow: the check's forms 1 and 3, and READ. */
const PATH = '/svc/resources/contexts/employees/subjects/bob';
const LOADS: Array<{ name: string; measure: (core: CoreUnderTest, ctx: ScenarioContext) => Promise<Measurement> }> = [
  {
    name: 'check form 1: HEAD + X-Operation READ (USER)',
    measure: (core, ctx) => rawLoop({ origin: core.url, path: PATH, method: 'HEAD', headers: { Cookie: core.cookie('bob'), 'X-Operation': 'READ' }, ...load(ctx) }),
  },
  {
    name: 'check form 3: GET ?isAllowed=READ (USER)',
    measure: (core, ctx) => autocannonLoad({ url: `${core.url}${PATH}?isAllowed=READ`, headers: { Cookie: core.cookie('bob'), Accept: 'application/json' }, ...load(ctx) }),
  },
  {
    name: 'READ subject (USER, own)',
    measure: (core, ctx) => autocannonLoad({ url: `${core.url}${PATH}`, headers: { Cookie: core.cookie('bob'), Accept: 'application/json' }, ...load(ctx) }),
  },
];

/** Rounds pooled: mean throughput, median of each round's percentiles. */
function pooled(ms: Measurement[]): Measurement {
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
  return {
    throughput: ms.reduce((sum, m) => sum + m.throughput, 0) / ms.length,
    p50Ms: median(ms.map((m) => m.p50Ms)),
    p99Ms: median(ms.map((m) => m.p99Ms)),
    total: ms.reduce((sum, m) => sum + m.total, 0),
    failures: ms.reduce((sum, m) => sum + m.failures, 0),
  };
}

const load = (ctx: ScenarioContext) => ({ connections: ctx.connections, duration: ctx.duration, warmup: ctx.warmup, expectStatus: 200 });

/**
 * This build's core against another build's, in one run (issue 26: a restructuring of the request
 * path must not lower the check's and READ's figures). `SVC_BENCH_VERSUS` names the other checkout,
 * built (`git worktree add /tmp/before <commit> && cd /tmp/before && npm run build`). The two cores
 * take turns, each in its own process on the same machine, for `SVC_BENCH_VERSUS_ROUNDS` rounds (4) of
 * each row, alternating which goes first, so that drift of the machine's load falls on both; a row's
 * ratio is the median of the rounds' ratios of this build's throughput over the other's.
 */
export const versus: Scenario = {
  name: 'versus',
  run: async (ctx) => {
    const other = process.env.SVC_BENCH_VERSUS;
    if (!other) return [{ name: 'this build versus another', throughput: null, unit: 'req/s', p50Ms: null, p99Ms: null, ratio: null, against: null, target: 'reported', met: null, note: 'not measured: SVC_BENCH_VERSUS names no other build' }];
    const dir = join(resolve(other), 'dist', 'bench');
    if (!existsSync(join(dir, 'servers', 'core.js'))) throw new Error(`${dir}/servers/core.js is missing: build that checkout first`);
    const roundCount = Number(process.env.SVC_BENCH_VERSUS_ROUNDS ?? 4);
    const label = other.replace(/\/+$/, '').split('/').pop() ?? other;
    const rows: Row[] = [];
    for (const { name, measure } of LOADS) {
      const before: Measurement[] = [];
      const after: Measurement[] = [];
      for (let round = 0; round < roundCount; round++) {
        // Alternate which goes first, so that neither always meets the machine warmer or busier.
        const first = round % 2 === 0 ? 'before' : 'after';
        for (const which of first === 'before' ? ['before', 'after'] : ['after', 'before']) {
          const m = await withCore(which === 'before' ? { dir } : {}, async (core) => measure(core, ctx));
          (which === 'before' ? before : after).push(m);
        }
      }
      const b = pooled(before);
      const a = pooled(after);
      // The median of the rounds' ratios: a burst of the machine's other load that hits one side of
      // one round moves the mean of throughputs, not this.
      const rounds = after.map((m, i) => m.throughput / before[i].throughput).sort((x, y) => x - y);
      const middle = rounds.length / 2;
      const ratio = rounds.length % 2 ? rounds[Math.floor(middle)] : (rounds[middle - 1] + rounds[middle]) / 2;
      const perRound = after.map((m, i) => (m.throughput / before[i].throughput).toFixed(2)).join(', ');
      rows.push({ name: `${name}: before (${label})`, throughput: b.throughput, unit: 'req/s', p50Ms: b.p50Ms, p99Ms: b.p99Ms, ratio: null, against: null, target: 'reported', met: null });
      rows.push({ name: `${name}: now`, throughput: a.throughput, unit: 'req/s', p50Ms: a.p50Ms, p99Ms: a.p99Ms, ratio, against: `${name}: before (${label})`, target: '≥ 0.97 × before (median of rounds)', met: ratio >= 0.97 && a.failures === 0, note: `${rounds.length} alternating rounds; per round ${perRound}` });
    }
    return rows;
  },
};

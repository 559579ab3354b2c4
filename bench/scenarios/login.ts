import { BARE_HASH } from '../baselines/names';
import { withCore } from '../lib/core';
import { rawLoop } from '../lib/raw-loop';
import { loadRow, type Scenario } from '../lib/scenario';
import { BENCH_CLIENT, BENCH_CREDENTIALS } from '../servers/core-shared';

const NAME = 'login with password (POST /login)';

/**
 * Logins to answer before measuring. The run's warmup is a time (2 s by default), which is tens of
 * thousands of requests for the REST rows but only ~350 logins: V8 optimises code after a number of
 * calls, not after a time, so at ~180 logins/s a 2 s warmup leaves JIT compilation inside the measured
 * window. Measured on 2 vCPU: main-thread CPU per login falls from 0.87 ms (first 2 s) to ~0.5 ms and
 * the compiler threads go quiet after ~2,000 logins (~12 s). The bare-verify baseline has a few JS
 * functions and is warm within its 2 s (205–208 verify/s after 2 s of warmup, 213 after 16 s).
 */
const WARMUP_LOGINS = 2500;
/** At most this much longer warmup (seconds), whatever the rate. */
const MAX_EXTRA_WARMUP = 30;

/**
 * POST {base}/login as bob with his password through client svc-web; 200 with a new session each
 * time. The raw keep-alive loop sends them: the baseline runs no load generator at all, and on a
 * 2-core machine autocannon's ~0.23 ms of CPU per request came out of the hashing threads' share.
 */
export const login: Scenario = {
  name: 'login',
  needs: ['hash'],
  run: (ctx) =>
    withCore({}, async (core) => {
      const url = `${core.base}/login`;
      const headers = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
      const body = new URLSearchParams({ user: 'bob', password: BENCH_CREDENTIALS.users.bob, clientid: BENCH_CLIENT }).toString();
      const probe = await fetch(url, { method: 'POST', headers, body, redirect: 'manual' });
      await probe.arrayBuffer();
      if (probe.status !== 200) {
        return [{ name: NAME, throughput: null, unit: 'req/s', p50Ms: null, p99Ms: null, ratio: null, against: BARE_HASH, target: `≥ 0.85 × ${BARE_HASH}`, met: null, note: `not measured: POST /login answered ${probe.status}` }];
      }
      const load = { origin: core.url, path: new URL(url).pathname, method: 'POST' as const, headers, body, connections: ctx.connections, expectStatus: 200, warmup: 0 };
      // The run's warmup first, then (unless it is 0, as in --smoke) as much more as WARMUP_LOGINS needs.
      let warmed = 0;
      if (ctx.warmup > 0) {
        const first = await rawLoop({ ...load, duration: ctx.warmup });
        warmed = first.total;
        const extra = first.throughput > 0 ? Math.min(MAX_EXTRA_WARMUP, Math.ceil((WARMUP_LOGINS - warmed) / first.throughput)) : 0;
        if (extra > 0) warmed += (await rawLoop({ ...load, duration: extra })).total;
      }
      const m = await rawLoop({ ...load, duration: ctx.duration });
      return [loadRow(NAME, m, { reference: ctx.row(BARE_HASH), minRatio: 0.85, note: warmed ? `after ${warmed} warmup logins` : undefined })];
    }),
};

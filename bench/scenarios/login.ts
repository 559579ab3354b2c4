import { BARE_HASH } from '../baselines/names';
import { autocannonLoad } from '../lib/autocannon';
import { withCore } from '../lib/core';
import { loadRow, type Scenario } from '../lib/scenario';
import { BENCH_CLIENT, BENCH_CREDENTIALS } from '../servers/core-shared';

const NAME = 'login with password (POST /login)';

/** POST {base}/login as bob with his password through client svc-web; 200 with a new session each time. */
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
      const m = await autocannonLoad({ url, method: 'POST', headers, body, connections: ctx.connections, duration: ctx.duration, warmup: ctx.warmup, expectStatus: 200 });
      return [loadRow(NAME, m, { reference: ctx.row(BARE_HASH), minRatio: 0.85 })];
    }),
};

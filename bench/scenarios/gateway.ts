import { autocannonLoad } from '../lib/autocannon';
import { withCore } from '../lib/core';
import { withGateway } from '../lib/gateway';
import { loadRow, type Scenario } from '../lib/scenario';

/** The direct row this one is compared with (scenarios/check.ts, same run). */
export const DIRECT_CHECK_FORM_3 = 'check form 3: GET ?isAllowed=READ (USER)';
const MIN_RATIO = 0.5;

/**
 * The check through the gateway (SPEC 9), form 3 as in the direct row: bob asks about his own
 * subject with `GET {gw}/api/contexts/employees/subjects/bob?isAllowed=READ` (ALLOW, 200). The core
 * and the gateway each run in their own process (the gateway forwards to the core over keep-alive
 * HTTP); autocannon signs every request with a fresh principal assertion (a nonce is accepted once),
 * so the load generator pays one HMAC per request as a portal would. The gateway's one core login
 * for bob happens in the warmup (or the first request) and is cached after that.
 */
export const gateway: Scenario = {
  name: 'gateway',
  needs: ['check'],
  run: (ctx) =>
    withCore({}, (core) =>
      withGateway(core.base, async (gw) => {
        const path = `${gw.root}/api/contexts/employees/subjects/bob?isAllowed=READ`;
        await core.settle();
        await gw.settle();
        const m = await autocannonLoad({
          url: gw.url + path,
          method: 'GET',
          headers: { Accept: 'application/json' },
          nextHeaders: (method, sent) => gw.assertion('bob', method, sent),
          connections: ctx.connections,
          duration: ctx.duration,
          warmup: ctx.warmup,
          expectStatus: 200,
          afterWarmup: () => gw.settle(),
        });
        return [loadRow('check form 3 through the gateway (USER bob)', m, { reference: ctx.row(DIRECT_CHECK_FORM_3), minRatio: MIN_RATIO })];
      }),
    ),
};

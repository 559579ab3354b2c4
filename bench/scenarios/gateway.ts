import { withCore } from '../lib/core';
import { withGateway } from '../lib/gateway';
import { rawLoop } from '../lib/raw-loop';
import { loadRow, type Scenario } from '../lib/scenario';

const MIN_RATIO = 0.5;
const DIRECT = 'check form 3 direct, raw loop (USER bob)';

/**
 * The check through the gateway (SPEC 9), form 3: bob asks about his own subject with
 * `GET {gw}/api/contexts/employees/subjects/bob?isAllowed=READ` (ALLOW, 200), compared with the same
 * check sent straight to the core by the same load generator in the same run. The core and the
 * gateway each run in their own process (the gateway forwards to the core over keep-alive HTTP);
 * every gateway request carries a freshly signed principal assertion (a nonce is accepted once), so
 * the load generator pays one HMAC per request as a portal would. The raw keep-alive loop is used
 * for both rows: autocannon rebuilds the whole request when its headers change, which on a shared
 * 2-core machine took CPU from the servers under test. The gateway's one core login for bob happens
 * in the warmup (or the first request) and is cached after that.
 */
export const gateway: Scenario = {
  name: 'gateway',
  run: (ctx) =>
    withCore({}, (core) =>
      withGateway(core.base, async (gw) => {
        const load = { method: 'GET' as const, connections: ctx.connections, duration: ctx.duration, warmup: ctx.warmup, expectStatus: 200, headers: { Accept: 'application/json' } };
        await core.settle();
        const direct = await rawLoop({ ...load, origin: core.url, path: '/svc/resources/contexts/employees/subjects/bob?isAllowed=READ', headers: { ...load.headers, Cookie: core.cookie('bob') } });
        const directRow = loadRow(DIRECT, direct, { target: 'reference' });
        await core.settle();
        await gw.settle();
        const through = await rawLoop({
          ...load,
          origin: gw.url,
          path: `${gw.root}/api/contexts/employees/subjects/bob?isAllowed=READ`,
          nextHeaders: (method, sent) => gw.assertion('bob', method, sent),
        });
        return [directRow, loadRow('check form 3 through the gateway (USER bob)', through, { reference: directRow, minRatio: MIN_RATIO })];
      }),
    ),
};

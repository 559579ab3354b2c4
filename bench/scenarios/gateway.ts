import { withCore } from '../lib/core';
import { withGateway } from '../lib/gateway';
import { rawLoop } from '../lib/raw-loop';
import { loadRow, type Scenario } from '../lib/scenario';

const MIN_RATIO = 0.5;
/** Clients at which both paths are compared: enough that the extra hop's latency does not cap the gateway row. */
const SATURATING = 4;

/**
 * The check through the gateway (SPEC 9), form 3: bob asks about his own subject with
 * `GET {gw}/api/contexts/employees/subjects/bob?isAllowed=READ` (ALLOW, 200), compared with the same
 * check sent straight to the core by the same load generator in the same run. The core and the
 * gateway each run in their own process (the gateway forwards to the core over keep-alive HTTP);
 * every gateway request carries a freshly signed principal assertion (a nonce is accepted once), so
 * the load generator pays one HMAC per request as a portal would. The raw keep-alive loop is used
 * for every row: autocannon rebuilds the whole request when its headers change, which on a shared
 * 2-core machine took CPU from the servers under test.
 *
 * Throughput is compared where both paths are at their capacity, with SATURATING × the run's
 * connections: at 16 the direct check already holds the core's one thread at 100 %, while a request
 * through the gateway spends most of its time travelling between three processes (measured: core
 * 51 %, gateway 75 %, nothing saturated), so 16 clients measure the hop's latency, not its capacity.
 * The row at the run's own connection count is reported beside it. The gateway's one core login for
 * bob happens in the first warmup and is cached after that.
 */
export const gateway: Scenario = {
  name: 'gateway',
  run: (ctx) =>
    withCore({}, (core) =>
      withGateway(core.base, async (gw) => {
        const base = { method: 'GET' as const, duration: ctx.duration, warmup: ctx.warmup, expectStatus: 200, headers: { Accept: 'application/json' } };
        const direct = (connections: number) =>
          rawLoop({ ...base, connections, origin: core.url, path: '/svc/resources/contexts/employees/subjects/bob?isAllowed=READ', headers: { ...base.headers, Cookie: core.cookie('bob') } });
        const through = (connections: number) =>
          rawLoop({ ...base, connections, origin: gw.url, path: `${gw.root}/api/contexts/employees/subjects/bob?isAllowed=READ`, nextHeaders: (method, sent) => gw.assertion({ contextId: 'employees', uniqueId: 'bob' }, method, sent) });
        const many = ctx.connections * SATURATING;
        await core.settle();
        const directRow = loadRow(`check form 3 direct, raw loop, ${many} connections (USER bob)`, await direct(many), { target: 'reference' });
        await core.settle();
        await gw.settle();
        const atCapacity = loadRow(`check form 3 through the gateway, ${many} connections (USER bob)`, await through(many), { reference: directRow, minRatio: MIN_RATIO });
        await gw.settle();
        const atRunConnections = loadRow(`check form 3 through the gateway, ${ctx.connections} connections (USER bob)`, await through(ctx.connections), { reference: directRow });
        return [directRow, atCapacity, atRunConnections];
      }),
    ),
};

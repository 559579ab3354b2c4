import { cpuMicrosecondsPer, processCpuSeconds } from '../lib/cpu';
import { withCore } from '../lib/core';
import { withGateway, type GatewayUnderTest } from '../lib/gateway';
import { rawLoop } from '../lib/raw-loop';
import { loadRow, type Row, type Scenario } from '../lib/scenario';

/** Issue 28's goals for the check through the gateway against the same check direct: by connections. */
const MIN_RATIO_AT_SATURATION = 0.7;
const MIN_RATIO_AT_RUN_CONNECTIONS = 0.6;
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
 * The rows at the run's own connection count (direct, then through the gateway) are reported beside
 * them (issue 28 states both ratios). BENCH_GATEWAY_OTHER=…/dist/bench runs another build's gateway
 * beside this one, against the same core, each row right after this build's (before and after a
 * change, in one run). The gateway's one core login for
 * bob happens in the first warmup and is cached after that. Each row through the gateway notes the
 * gateway's CPU time (user + system, /proc) per request: steadier than throughput on a shared machine.
 */
export const gateway: Scenario = {
  name: 'gateway',
  run: (ctx) =>
    withCore({}, (core) =>
      withGateway(core.base, async (gw) => {
        const base = { method: 'GET' as const, duration: ctx.duration, warmup: ctx.warmup, expectStatus: 200, headers: { Accept: 'application/json' } };
        const direct = (connections: number) =>
          rawLoop({ ...base, connections, origin: core.url, path: '/svc/resources/contexts/employees/subjects/bob?isAllowed=READ', headers: { ...base.headers, Cookie: core.cookie('bob') } });
        const through = (via: GatewayUnderTest, connections: number) =>
          rawLoop({ ...base, connections, origin: via.url, path: `${via.root}/api/contexts/employees/subjects/bob?isAllowed=READ`, nextHeaders: (method, sent) => via.assertion({ contextId: 'employees', uniqueId: 'bob' }, method, sent) });
        const many = ctx.connections * SATURATING;
        /** At `connections`: the direct check, then through this gateway (and through the other build's, when given), each ratio against that direct row. */
        const compared = async (connections: number, other: GatewayUnderTest | undefined): Promise<Row[]> => {
          await core.settle();
          const directRow = loadRow(`check form 3 direct, raw loop, ${connections} connections (USER bob)`, await direct(connections), { target: 'reference' });
          const rows = [directRow];
          for (const [via, label] of [[gw, ''], ...(other ? [[other, ' (the other build: BENCH_GATEWAY_OTHER)'] as const] : [])] as const) {
            await core.settle();
            await via.settle();
            const cpuBefore = processCpuSeconds(via.pid) ?? 0;
            const measured = await through(via, connections);
            const note = `gateway CPU ${cpuMicrosecondsPer((processCpuSeconds(via.pid) ?? 0) - cpuBefore, measured.total, ctx)} µs a request`;
            const name = `check form 3 through the gateway${label}, ${connections} connections (USER bob)`;
            rows.push(loadRow(name, measured, { reference: directRow, minRatio: connections === many ? MIN_RATIO_AT_SATURATION : MIN_RATIO_AT_RUN_CONNECTIONS, note }));
          }
          return rows;
        };
        const both = async (other?: GatewayUnderTest) => [...(await compared(many, other)), ...(await compared(ctx.connections, other))];
        const otherBuild = process.env.BENCH_GATEWAY_OTHER;
        return otherBuild ? withGateway(core.base, (other) => both(other), { dir: otherBuild }) : both();
      }),
    ),
};

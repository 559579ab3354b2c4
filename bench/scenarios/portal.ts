import { withCore } from '../lib/core';
import { withChild } from '../lib/child';
import { withGateway } from '../lib/gateway';
import { rawLoop } from '../lib/raw-loop';
import { requestsPerPage } from '../lib/page-requests';
import { loadRow, type Measurement, type Row, type Scenario } from '../lib/scenario';
import { cpuMicrosecondsPer, ownCpuSeconds, processCpuSeconds } from '../lib/cpu';
import type { PortalReady } from '../servers/portal';

/** Issue 28's goal: the portal's own cost at most a fifth of a page's work. */
const MIN_RATIO = 0.8;
/** As in the gateway scenario: both the pages and the check compared at the gateway's capacity. */
const SATURATING = 4;

/** CPU time per operation of each process over one load (µs; `bench` is the load generator, this process). */
type CpuShares = Record<'portal' | 'gateway' | 'core' | 'bench', number>;

async function measuredWithCpu(pids: { portal?: number; gateway: number; core: number }, load: { duration: number; warmup: number }, run: () => Promise<Measurement>): Promise<{ measured: Measurement; cpu: CpuShares }> {
  const seconds = () => ({ portal: pids.portal ? (processCpuSeconds(pids.portal) ?? 0) : 0, gateway: processCpuSeconds(pids.gateway) ?? 0, core: processCpuSeconds(pids.core) ?? 0, bench: ownCpuSeconds() });
  const before = seconds();
  const measured = await run();
  const after = seconds();
  const per = (name: keyof CpuShares) => cpuMicrosecondsPer(after[name] - before[name], measured.total, load);
  return { measured, cpu: { portal: per('portal'), gateway: per('gateway'), core: per('core'), bench: per('bench') } };
}

const total = (cpu: CpuShares): number => cpu.portal + cpu.gateway + cpu.core + cpu.bench;

/**
 * Portal pages (issue 14): bob's home page (Self-Service) and alice's Administration page (User
 * Admin, 20 results), rendered by the demo portal in its own process, through a gateway and a core in
 * theirs. A page is worth the gateway requests it makes (counted on the gateway's /metrics), so the
 * target compares page throughput × gateway requests per page with the gateway's own check throughput
 * in the same run: the portal's own cost is then at most 20 % of the work.
 *
 * Every row notes the CPU time (user + system, /proc) each process spent per check or per page,
 * the load generator's included. Two cores shared by all of them make throughput the inverse of a
 * page's whole CPU time, so a page row also notes the ratio it would have if the portal's own work
 * cost nothing: what the page's gateway requests alone allow, against the check's.
 */
export const portal: Scenario = {
  name: 'portal',
  run: (ctx) =>
    withCore({ subjects: 20 }, (core) =>
      withGateway(core.base, (gw) =>
        withChild<PortalReady, Row[]>('servers/portal', ['--gateway', gw.base], async (child) => {
          const p = child.ready;
          const many = ctx.connections * SATURATING;
          const base = { method: 'GET' as const, duration: ctx.duration, warmup: ctx.warmup, expectStatus: 200 };
          const pids = { gateway: gw.pid, core: core.pid };
          await core.settle();
          await gw.settle();
          const checked = await measuredWithCpu(pids, ctx, () =>
            rawLoop({ ...base, connections: many, origin: gw.url, path: `${gw.root}/api/contexts/employees/subjects/bob?isAllowed=READ`, headers: { Accept: 'application/json' }, nextHeaders: (method, sent) => gw.assertion({ contextId: 'employees', uniqueId: 'bob' }, method, sent) }),
          );
          const checkCpu = checked.cpu;
          const check = loadRow(`check form 3 through the gateway, ${many} connections (USER bob)`, checked.measured, {
            target: 'reference',
            note: `CPU a check: gateway ${checkCpu.gateway} µs, core ${checkCpu.core} µs, load generator ${checkCpu.bench} µs`,
          });
          const rows: Row[] = [check];
          for (const [who, page, label] of [['bob', 'home', 'home page (Self-Service), bob'], ['alice', 'admin', 'Administration (User Admin, 20 results), alice']] as const) {
            const path = `${p.root}/page/${page}`;
            const perPage = await requestsPerPage({ portalUrl: p.url, gatewayUrl: gw.url, cookie: p.cookies[who] }, path);
            await gw.settle();
            const { measured, cpu } = await measuredWithCpu({ ...pids, portal: child.process.pid! }, ctx, () =>
              rawLoop({ ...base, connections: many, origin: p.url, path, headers: { Accept: 'text/html', Cookie: p.cookies[who] } }),
            );
            const withoutPortal = total(cpu) - cpu.portal;
            const freePortal = withoutPortal > 0 ? (perPage * total(checkCpu)) / withoutPortal : null;
            const note = [
              `${perPage} gateway requests per page`,
              `CPU a page: portal ${cpu.portal} µs, gateway ${cpu.gateway} µs, core ${cpu.core} µs, load generator ${cpu.bench} µs`,
              ...(freePortal === null ? [] : [`with a portal that cost nothing: ${freePortal.toFixed(2)}`]),
            ].join('; ');
            const row = loadRow(`portal ${label}, ${many} connections`, measured, { unit: 'pages/s', note });
            const ratio = check.throughput ? (measured.throughput * perPage) / check.throughput : null;
            rows.push({ ...row, ratio, against: check.name, target: `pages × gateway requests per page ≥ ${MIN_RATIO} × ${check.name}`, met: ratio === null ? null : ratio >= MIN_RATIO && measured.failures === 0 });
          }
          return rows;
        }),
      ),
    ),
};

import { withCore } from '../lib/core';
import { withChild } from '../lib/child';
import { withGateway } from '../lib/gateway';
import { rawLoop } from '../lib/raw-loop';
import { requestsPerPage } from '../lib/page-requests';
import { loadRow, type Row, type Scenario } from '../lib/scenario';
import type { PortalReady } from '../servers/portal';

/** Issue 28's goal: the portal's own cost at most a fifth of a page's work. */
const MIN_RATIO = 0.8;
/** As in the gateway scenario: both the pages and the check compared at the gateway's capacity. */
const SATURATING = 4;

/**
 * Portal pages (issue 14): bob's home page (Self-Service) and alice's Administration page (User
 * Admin, 20 results), rendered by the demo portal in its own process, through a gateway and a core in
 * theirs. A page is worth the gateway requests it makes (counted on the gateway's /metrics), so the
 * target compares page throughput × gateway requests per page with the gateway's own check throughput
 * in the same run: the portal's own cost is then at most 20 % of the work.
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
          await core.settle();
          await gw.settle();
          const check = loadRow(`check form 3 through the gateway, ${many} connections (USER bob)`, await rawLoop({ ...base, connections: many, origin: gw.url, path: `${gw.root}/api/contexts/employees/subjects/bob?isAllowed=READ`, headers: { Accept: 'application/json' }, nextHeaders: (method, sent) => gw.assertion({ contextId: 'employees', uniqueId: 'bob' }, method, sent) }), { target: 'reference' });
          const rows: Row[] = [check];
          for (const [who, page, label] of [['bob', 'home', 'home page (Self-Service), bob'], ['alice', 'admin', 'Administration (User Admin, 20 results), alice']] as const) {
            const path = `${p.root}/page/${page}`;
            const perPage = await requestsPerPage({ portalUrl: p.url, gatewayUrl: gw.url, cookie: p.cookies[who] }, path);
            await gw.settle();
            const measured = await rawLoop({ ...base, connections: many, origin: p.url, path, headers: { Accept: 'text/html', Cookie: p.cookies[who] } });
            const row = loadRow(`portal ${label}, ${many} connections`, measured, { unit: 'pages/s', note: `${perPage} gateway requests per page` });
            const ratio = check.throughput ? (measured.throughput * perPage) / check.throughput : null;
            rows.push({ ...row, ratio, against: check.name, target: `pages × gateway requests per page ≥ ${MIN_RATIO} × ${check.name}`, met: ratio === null ? null : ratio >= MIN_RATIO && measured.failures === 0 });
          }
          return rows;
        }),
      ),
    ),
};

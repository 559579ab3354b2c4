import { withChild } from '../lib/child';
import { withCore } from '../lib/core';
import { withGateway } from '../lib/gateway';
import { requestsPerPage, requestsPerProfileSave, SUBJECT_VIEW_QUERY } from '../lib/page-requests';
import type { Row, Scenario } from '../lib/scenario';
import type { PortalReady } from '../servers/portal';

/** Issue 28's two hard goals: counts, not timings, so the same on any machine. */
const PER_PAGE_VIEW = 2;
const PER_PROFILE_SAVE = 3;

function countRow(name: string, count: number, limit: number, unit: string): Row {
  return { name, throughput: null, unit, p50Ms: null, p99Ms: null, ratio: count / limit, against: `${limit} gateway requests`, target: `≤ ${limit} gateway requests`, met: count <= limit, note: `${count} gateway requests` };
}

/**
 * Gateway requests per portal page (issue 28), counted on the gateway's /metrics: bob's home page
 * (Self-Service), alice's Administration (User Admin, 20 results), her view of bob there (his status,
 * second factor and recent events), and bob's "Edit profile" save
 * (the action and the page after it). The demo portal, a gateway and a core each in its own process.
 */
export const portalRequests: Scenario = {
  name: 'portal-requests',
  run: () =>
    withCore({ subjects: 20 }, (core) =>
      withGateway(core.base, (gw) =>
        withChild<PortalReady, Row[]>('servers/portal', ['--gateway', gw.base], async ({ ready: p }) => {
          const bob = { portalUrl: p.url, gatewayUrl: gw.url, cookie: p.cookies.bob };
          const alice = { ...bob, cookie: p.cookies.alice };
          const home = await requestsPerPage(bob, `${p.root}/page/home`);
          const admin = await requestsPerPage(alice, `${p.root}/page/admin`);
          const subject = await requestsPerPage(alice, `${p.root}/page/admin?${SUBJECT_VIEW_QUERY}`);
          const save = await requestsPerProfileSave(bob, p.root, { givenName: 'Robert' });
          return [
            countRow('gateway requests per page view: home page (Self-Service), bob', home, PER_PAGE_VIEW, 'requests/page'),
            countRow('gateway requests per page view: Administration (User Admin, 20 results), alice', admin, PER_PAGE_VIEW, 'requests/page'),
            countRow('gateway requests per page view: Administration, one subject (User Admin: bob with his status and events), alice', subject, PER_PAGE_VIEW, 'requests/page'),
            countRow('gateway requests per "Edit profile" save (action + the page after it), bob', save, PER_PROFILE_SAVE, 'requests/save'),
          ];
        }),
      ),
    ),
};

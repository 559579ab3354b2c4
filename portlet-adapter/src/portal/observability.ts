/**
 * The portal's log (one JSON line per event, never a secret) and its metrics on its own registry
 * (so a core, a gateway and a portal can share one process, as in the demo and the tests).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { collectProcessMetrics } from '../../../common/src/http/process-metrics';
import { createLogger, type Logger } from '../../../common/src/log';

export type { Logger };

export function createPortalLogger(): Logger {
  return createLogger({ name: 'svc-portal' });
}

export class PortalMetrics {
  readonly registry = new Registry();
  readonly requests = new Histogram({
    name: 'svc_portal_request_duration_seconds',
    help: 'Portal requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly pages = new Histogram({
    name: 'svc_portal_page_render_duration_seconds',
    help: 'Aggregated page renders by page',
    labelNames: ['page'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly portlets = new Histogram({
    name: 'svc_portal_portlet_duration_seconds',
    help: 'Portlet phases (action, render) by portlet and outcome (ok, cached, failed, timeout, unavailable)',
    labelNames: ['portlet', 'phase', 'outcome'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly portletErrors = new Counter({
    name: 'svc_portal_portlet_errors_total',
    help: 'Portlet phases that failed, timed out or found the portlet unavailable',
    labelNames: ['portlet', 'phase', 'reason'] as const,
    registers: [this.registry],
  });
  readonly logins = new Counter({
    name: 'svc_portal_logins_total',
    help: 'Portal logins by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor(sizes: { sessions: () => number }, defaults = true) {
    new Gauge({ name: 'svc_portal_sessions', help: 'Live portal sessions of logged-in users', registers: [this.registry], collect() {
      this.set(sizes.sessions());
    } });
    if (defaults) collectProcessMetrics(this.registry, 'svc_portal_');
  }
}

/** One audit line: `event`, outcome, reason and who; never a password, cookie or token. */
export function audit(log: Logger, fields: { event: string; outcome: 'success' | 'failure'; reason?: string; [key: string]: unknown }): void {
  log.info({ audit: true, ...fields }, fields.event);
}

import { Counter, Histogram, Registry } from 'prom-client';
import { collectProcessMetrics } from '../../common/src/http/process-metrics';

/** The counters of one server process, on its own registry so several servers can share a process (tests). */
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });
  readonly audit = new Counter({
    name: 'svc_audit_events_total',
    help: 'Audit events by event and outcome',
    labelNames: ['event', 'outcome', 'reason'] as const,
    registers: [this.registry],
  });
  readonly decisions = new Counter({
    name: 'svc_authz_decisions_total',
    help: 'Policy decisions by decision and operation',
    labelNames: ['decision', 'operation'] as const,
    registers: [this.registry],
  });

  readonly logins = new Counter({
    name: 'svc_logins_total',
    help: 'Login attempts by outcome (success, failure) and reason (authenticator id, or why it failed)',
    labelNames: ['outcome', 'reason'] as const,
    registers: [this.registry],
  });

  constructor(defaults = true) {
    if (defaults) collectProcessMetrics(this.registry);
  }
}

/**
 * The gateway's log (one JSON line per event, never a secret) and its metrics on its own prom-client
 * registry (so that a core and a gateway can share one process, as in the demo and the tests).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { collectProcessMetrics } from '../../common/src/http/process-metrics';
import { createLogger, type Logger } from '../../common/src/log';

export type { Logger };

export function createGatewayLogger(): Logger {
  return createLogger({ name: 'svc-gateway' });
}

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly requests = new Histogram({
    name: 'svc_gateway_request_duration_seconds',
    help: 'Gateway requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });
  readonly assertionFailures = new Counter({
    name: 'svc_gateway_assertion_failures_total',
    help: 'Rejected portal principal assertions by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly coreLogins = new Counter({
    name: 'svc_gateway_core_logins_total',
    help: 'Logins of the gateway to a core by kind (principal: a portal user; password: POST /api/login) and outcome',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly renewals = new Counter({
    name: 'svc_gateway_session_renewals_total',
    help: 'Core sessions found dead and renewed with one retry',
    registers: [this.registry],
  });
  readonly coreUp = new Gauge({
    name: 'svc_gateway_core_up',
    help: '1 when the core is taking requests, 0 while it is skipped',
    labelNames: ['core'] as const,
    registers: [this.registry],
  });

  /** The histogram's child of each (method, route, status) seen: prom-client would hash the labels on every observation. */
  readonly #requestChildren = new Map<string, { observe(seconds: number): void }>();

  constructor(defaults = true) {
    if (defaults) collectProcessMetrics(this.registry, 'svc_gateway_');
  }

  /** One request's duration (methods, routes and statuses are few: the children stay few). */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let child = this.#requestChildren.get(key);
    if (child === undefined) this.#requestChildren.set(key, (child = this.requests.labels(method, route, String(status))));
    child.observe(seconds);
  }
}

/** One audit line: `event`, outcome, reason and who; never an assertion, cookie or secret. */
export function audit(log: Logger, fields: { event: string; outcome: 'success' | 'failure'; reason?: string; [key: string]: unknown }): void {
  log.info({ audit: true, ...fields }, fields.event);
}

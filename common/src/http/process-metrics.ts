import { collectDefaultMetrics, type Registry } from 'prom-client';

/**
 * prom-client's default gauges whose names end in `_total`, which OpenMetrics and `promtool check
 * metrics` reserve for counters. Each is the sum of a labelled gauge the defaults also register
 * (`nodejs_active_handles{type}` …), so `sum(nodejs_active_handles)` answers what they did.
 */
const GAUGES_NAMED_LIKE_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** prom-client's default process and Node.js metrics on `registry`, without the misnamed gauges: `/metrics` passes promtool. */
export function collectProcessMetrics(registry: Registry, prefix = ''): void {
  collectDefaultMetrics({ register: registry, prefix });
  for (const name of GAUGES_NAMED_LIKE_COUNTERS) registry.removeSingleMetric(`${prefix}${name}`);
}

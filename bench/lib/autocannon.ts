import autocannon from 'autocannon';
import { Latencies } from './percentiles';
import type { Measurement } from './scenario';

export interface LoadOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Called before each request: a fresh body (CREATE needs a new uniqueId every time). */
  nextBody?: () => string;
  connections: number;
  duration: number;
  warmup: number;
  /** The status a successful answer has (default: any 2xx). */
  expectStatus?: number;
  /** Seconds before a request counts as failed (default 10). */
  timeout?: number;
}

function failureKinds(statuses: Map<number, number>, result: autocannon.Result): string {
  const kinds = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status} ×${count}`);
  if (result.errors) kinds.push(`${result.errors} errors (${result.timeouts} timeouts)`);
  return kinds.join(', ');
}

async function once(options: LoadOptions, duration: number): Promise<Measurement> {
  const { nextBody } = options;
  // autocannon calls setupRequest whenever it builds the next request of a connection, so a fresh
  // body costs one request build each (the static form is built once).
  const setupRequest = (request: autocannon.RawRequest): autocannon.RawRequest => ({
    ...request,
    ...(nextBody ? { body: nextBody() } : {}),
  });
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    duration,
    timeout: options.timeout,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    ...(nextBody ? { requests: [{ setupRequest }] } : {}),
  });
  const latencies = new Latencies();
  let ok = 0;
  let other = 0;
  const otherStatuses = new Map<number, number>();
  const wanted = options.expectStatus;
  instance.on('response', (_client, status, _bytes, ms) => {
    const success = wanted === undefined ? status >= 200 && status < 300 : status === wanted;
    if (success) {
      ok++;
      latencies.record(ms);
    } else {
      other++;
      otherStatuses.set(status, (otherStatuses.get(status) ?? 0) + 1);
    }
  });
  const result = await instance;
  return {
    throughput: ok / result.duration,
    ...latencies.summary(),
    total: ok + other + result.errors,
    failures: other + result.errors,
    ...(other + result.errors ? { failureKinds: failureKinds(otherStatuses, result) } : {}),
  };
}

/**
 * Loads `url` with autocannon for `warmup` seconds (not recorded), then for `duration` seconds, and
 * returns successful answers per second and their p50/p99 latency. autocannon's own latency
 * histogram has 1 ms resolution, so latencies are taken from its per-response event instead.
 * autocannon waits for a body: use undici-loop.ts for HEAD.
 */
export async function autocannonLoad(options: LoadOptions): Promise<Measurement> {
  if (options.warmup > 0) {
    await once(options, options.warmup);
  }
  return once(options, options.duration);
}

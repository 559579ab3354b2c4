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

async function once(options: LoadOptions, duration: number): Promise<Measurement> {
  const { nextBody } = options;
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    duration,
    timeout: options.timeout,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    ...(nextBody ? { requests: [{ setupRequest: (request) => ({ ...request, body: nextBody() }) }] } : {}),
  });
  const latencies = new Latencies();
  let ok = 0;
  let other = 0;
  const wanted = options.expectStatus;
  instance.on('response', (_client, status, _bytes, ms) => {
    const success = wanted === undefined ? status >= 200 && status < 300 : status === wanted;
    if (success) {
      ok++;
      latencies.record(ms);
    } else other++;
  });
  const result = await instance;
  return {
    throughput: ok / result.duration,
    ...latencies.summary(),
    total: ok + other + result.errors,
    failures: other + result.errors,
  };
}

/**
 * Loads `url` with autocannon for `warmup` seconds (not recorded), then for `duration` seconds, and
 * returns successful answers per second and their p50/p99 latency. autocannon's own latency
 * histogram has 1 ms resolution, so latencies are taken from its per-response event instead.
 * autocannon waits for a body: use undici-loop.ts for HEAD.
 */
export async function autocannonLoad(options: LoadOptions): Promise<Measurement> {
  if (options.warmup > 0) await once(options, options.warmup);
  return once(options, options.duration);
}

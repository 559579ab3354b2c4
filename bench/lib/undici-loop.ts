import { Client, type Dispatcher } from 'undici';
import { Latencies } from './percentiles';
import type { Measurement } from './scenario';

export interface LoopOptions {
  /** Origin, e.g. http://127.0.0.1:1234 */
  origin: string;
  path: string;
  method: Dispatcher.HttpMethod;
  headers?: Record<string, string>;
  connections: number;
  duration: number;
  warmup: number;
  /** The status a successful answer has (default: any 2xx). */
  expectStatus?: number;
}

async function once(options: LoopOptions, seconds: number): Promise<Measurement> {
  const clients = Array.from({ length: options.connections }, () => new Client(options.origin, { pipelining: 1, keepAliveTimeout: 60_000 }));
  const latencies = new Latencies();
  let ok = 0;
  let other = 0;
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(seconds * 1e9));
  const wanted = options.expectStatus;
  await Promise.all(
    clients.map(async (client) => {
      while (process.hrtime.bigint() < deadline) {
        const t0 = process.hrtime.bigint();
        try {
          const response = await client.request({ path: options.path, method: options.method, headers: options.headers });
          await response.body.dump();
          const ms = Number(process.hrtime.bigint() - t0) / 1e6;
          const status = response.statusCode;
          if (wanted === undefined ? status >= 200 && status < 300 : status === wanted) {
            ok++;
            latencies.record(ms);
          } else other++;
        } catch {
          other++;
        }
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  await Promise.all(clients.map((c) => c.close()));
  return { throughput: ok / elapsed, ...latencies.summary(), total: ok + other, failures: other };
}

/**
 * A closed loop of `connections` keep-alive connections, each sending the next request as soon as
 * the previous answer is complete, for `duration` seconds after `warmup` seconds. Used where
 * autocannon cannot time the answer (HEAD: autocannon waits for a body that never comes).
 */
export async function undiciLoop(options: LoopOptions): Promise<Measurement> {
  if (options.warmup > 0) await once(options, options.warmup);
  return once(options, options.duration);
}

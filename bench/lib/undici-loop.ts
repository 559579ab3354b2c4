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

function once(options: LoopOptions, seconds: number): Promise<Measurement> {
  const clients = Array.from({ length: options.connections }, () => new Client(options.origin, { pipelining: 1, keepAliveTimeout: 60_000 }));
  const latencies = new Latencies();
  const wanted = options.expectStatus;
  const isOk = (status: number) => (wanted === undefined ? status >= 200 && status < 300 : status === wanted);
  let ok = 0;
  let other = 0;
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(seconds * 1e9));
  const request: Dispatcher.DispatchOptions = { path: options.path, method: options.method, headers: options.headers };

  return new Promise((resolve) => {
    let running = clients.length;
    const finished = () => {
      if (--running > 0) return;
      const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
      void Promise.all(clients.map((c) => c.close())).then(() =>
        resolve({ throughput: ok / elapsed, ...latencies.summary(), total: ok + other, failures: other }),
      );
    };
    // One request at a time per connection; callbacks only (no promise or body stream per request),
    // so that the load generator costs as little as possible.
    const next = (client: Client) => {
      const t0 = process.hrtime.bigint();
      if (t0 >= deadline) return finished();
      let status = 0;
      // The handler form Client.dispatch takes directly in undici 7 (the newer onResponse* form
      // needs a wrapping dispatcher).
      client.dispatch(request, {
        onConnect: () => undefined,
        onHeaders: (statusCode) => {
          status = statusCode;
          return true;
        },
        onData: () => true,
        onComplete: () => {
          if (isOk(status)) {
            ok++;
            latencies.record(Number(process.hrtime.bigint() - t0) / 1e6);
          } else other++;
          setImmediate(next, client);
        },
        onError: () => {
          other++;
          setImmediate(next, client);
        },
      });
    };
    for (const client of clients) next(client);
  });
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

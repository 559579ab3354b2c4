import { connect, type Socket } from 'node:net';
import { Latencies } from './percentiles';
import type { Measurement } from './scenario';
import type { LoopOptions } from './undici-loop';

const END = Buffer.from('\r\n\r\n');

function once(options: Omit<LoopOptions, 'method'>, seconds: number): Promise<Measurement> {
  const url = new URL(options.origin);
  const headerLines = Object.entries({ Host: url.host, ...options.headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  const request = Buffer.from(`HEAD ${options.path} HTTP/1.1\r\n${headerLines}\r\n`);
  const wanted = options.expectStatus;
  const isOk = (status: number) => (wanted === undefined ? status >= 200 && status < 300 : status === wanted);
  const latencies = new Latencies();
  let ok = 0;
  let other = 0;
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(seconds * 1e9));

  const loop = () =>
    new Promise<void>((resolve) => {
      const socket: Socket = connect({ host: url.hostname, port: Number(url.port), noDelay: true });
      let pending: Buffer = Buffer.alloc(0);
      let t0 = 0n;
      const send = () => {
        t0 = process.hrtime.bigint();
        if (t0 >= deadline) {
          socket.end();
          return resolve();
        }
        socket.write(request);
      };
      socket.on('connect', send);
      socket.on('data', (chunk: Buffer) => {
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        // A HEAD answer is headers only: one response ends at the blank line.
        let end = pending.indexOf(END);
        while (end >= 0) {
          const status = Number(pending.subarray(9, 12).toString('latin1'));
          if (isOk(status)) {
            ok++;
            latencies.record(Number(process.hrtime.bigint() - t0) / 1e6);
          } else other++;
          pending = pending.subarray(end + END.length);
          end = pending.indexOf(END);
          send();
        }
      });
      socket.on('error', () => {
        other++;
        resolve();
      });
      socket.on('close', () => resolve());
    });

  return Promise.all(Array.from({ length: options.connections }, loop)).then(() => {
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    return { throughput: ok / elapsed, ...latencies.summary(), total: ok + other, failures: other };
  });
}

/**
 * HEAD requests over raw keep-alive sockets, one at a time per connection, for `duration` seconds
 * after `warmup`. undici closes the connection after every HEAD (it guards against servers that send
 * a body), so the undici loop measures a TCP connect per request; this loop measures what a
 * keep-alive client of the HEAD form sees.
 */
export async function headLoop(options: Omit<LoopOptions, 'method'>): Promise<Measurement> {
  if (options.warmup > 0) await once(options, options.warmup);
  return once(options, options.duration);
}

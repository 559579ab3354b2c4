import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { Latencies } from './percentiles';
import type { Measurement } from './scenario';
import type { LoopOptions } from './undici-loop';

export interface RawLoopOptions extends LoopOptions {
  /** The same body with every request (sent with its Content-Length). */
  body?: string;
  /** Headers for one request only, computed as it is sent (a fresh principal assertion). */
  nextHeaders?: (method: string, path: string) => Record<string, string>;
  /** Called with every answer's status, whatever it is (the soak counts 5xx per kind). */
  onStatus?: (status: number) => void;
  /** Called with every answer's status line and headers (latin1), before the next request is built. */
  onHead?: (head: string) => void;
  /** A body for one request only, computed as it is sent (a fresh clientcred); replaces `body`. */
  nextBody?: () => string;
  /** TLS to the server (a client certificate's `cert` and `key`, the server's `ca`). */
  tls?: ConnectionOptions;
  /** A new connection (with TLS, a whole handshake) for every request, instead of keep-alive. */
  connectionPerRequest?: boolean;
}

const END_OF_HEADERS = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;
const CHUNKED = /\r\ntransfer-encoding:\s*chunked/i;

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
}

function once(options: RawLoopOptions, seconds: number): Promise<Measurement> {
  const url = new URL(options.origin);
  const { method, path, nextHeaders } = options;
  const body = options.body ?? '';
  const length: Record<string, string> = options.body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) };
  const head = `${method} ${path} HTTP/1.1\r\n${headerLines({ Host: url.host, ...options.headers, ...length })}`;
  const fixed = Buffer.from(`${head}\r\n${body}`);
  const requestBytes = () => {
    if (options.nextBody) {
      const fresh = options.nextBody();
      return Buffer.from(`${head}${headerLines({ 'Content-Length': String(Buffer.byteLength(fresh)), ...nextHeaders?.(method, path) })}\r\n${fresh}`);
    }
    return nextHeaders ? Buffer.from(`${head}${headerLines(nextHeaders(method, path))}\r\n${body}`) : fixed;
  };
  const wanted = options.expectStatus;
  const isOk = (status: number) => (wanted === undefined ? status >= 200 && status < 300 : status === wanted);
  const latencies = new Latencies();
  let ok = 0;
  let other = 0;
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(seconds * 1e9));

  const loop = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const socket: Socket = options.tls
        ? tlsConnect({ host: url.hostname, port: Number(url.port), ...options.tls }).setNoDelay(true)
        : connect({ host: url.hostname, port: Number(url.port), noDelay: true });
      let first = true;
      let pending: Buffer = Buffer.alloc(0);
      let t0 = 0n;
      const send = () => {
        const now = process.hrtime.bigint();
        if (now >= deadline) {
          socket.end();
          return resolve();
        }
        if (options.connectionPerRequest && !first) {
          // The next request on a new connection: its latency includes the connect (and handshake).
          socket.end();
          return resolve(loop());
        }
        first = false;
        // With a new connection per request, time from the connect, made just before this.
        if (!options.connectionPerRequest) t0 = now;
        socket.write(requestBytes());
      };
      t0 = process.hrtime.bigint();
      /** One whole answer at the front of `pending`: its length, or 0 while incomplete. */
      const answerLength = (): number => {
        const end = pending.indexOf(END_OF_HEADERS);
        if (end < 0) return 0;
        const headers = pending.subarray(0, end).toString('latin1');
        if (CHUNKED.test(headers)) throw new Error('raw loop: chunked answers are not supported');
        const body = method === 'HEAD' ? 0 : Number(CONTENT_LENGTH.exec(headers)?.[1] ?? 0);
        const total = end + END_OF_HEADERS.length + body;
        return pending.length >= total ? total : 0;
      };
      socket.on(options.tls ? 'secureConnect' : 'connect', send);
      socket.on('data', (chunk: Buffer) => {
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        for (let length = answerLength(); length > 0; length = answerLength()) {
          const status = Number(pending.subarray(9, 12).toString('latin1'));
          options.onStatus?.(status);
          options.onHead?.(pending.subarray(0, pending.indexOf(END_OF_HEADERS)).toString('latin1'));
          if (isOk(status)) {
            ok++;
            latencies.record(Number(process.hrtime.bigint() - t0) / 1e6);
          } else other++;
          pending = pending.subarray(length);
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
 * Requests over raw keep-alive sockets, one at a time per connection, for `duration` seconds after
 * `warmup`; answers are delimited by Content-Length (HEAD: headers only). It costs the load generator
 * less per request than autocannon or undici, which matters on a machine it shares with the servers:
 * for HEAD (undici closes the connection after every HEAD, and autocannon cannot time one), for
 * requests that need fresh headers each (autocannon rebuilds the whole request for those), and
 * wherever a comparison is with a baseline that has no load generator at all (login).
 */
export async function rawLoop(options: RawLoopOptions): Promise<Measurement> {
  if (options.warmup > 0) await once(options, options.warmup);
  return once(options, options.duration);
}

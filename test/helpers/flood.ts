import { connect, type Socket } from 'node:net';

/**
 * A flood of requests over raw keep-alive sockets (after bench/lib/raw-loop.ts): one request object
 * per call would cost the load generator more than the server pays to refuse one, on a machine the
 * two share. Each connection sends its next request when the previous answer is complete; a
 * connection the server closes is opened again. Answers are delimited by Content-Length, or by the
 * last chunk of a chunked body.
 */
export interface FloodOptions {
  host: string;
  port: number;
  /** The client socket's address (127.0.0.x: the server sees each as another visitor). */
  localAddress: string;
  connections: number;
  total: number;
  /** The bytes of request `i` (0 ≤ i < total), a whole HTTP/1.1 request. */
  request(i: number): Buffer;
}

const END_OF_HEADERS = Buffer.from('\r\n\r\n');
const LAST_CHUNK = Buffer.from('\r\n0\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;
const CHUNKED = /\r\ntransfer-encoding:\s*chunked/i;

/** Sends `total` requests and resolves how many answers came back with each status. */
export function flood(options: FloodOptions): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  let answered = 0;
  const loop = () =>
    new Promise<void>((resolve, reject) => {
      let socket: Socket;
      let pending: Buffer = Buffer.alloc(0);
      let inFlight = false;
      const send = () => {
        if (next >= options.total) {
          socket.end();
          return;
        }
        inFlight = true;
        socket.write(options.request(next++));
      };
      /** The length of one whole answer at the front of `pending`, or 0 while it is incomplete. */
      const answerLength = (): number => {
        const end = pending.indexOf(END_OF_HEADERS);
        if (end < 0) return 0;
        const headers = pending.subarray(0, end).toString('latin1');
        const start = end + END_OF_HEADERS.length;
        if (CHUNKED.test(headers)) {
          const last = pending.indexOf(LAST_CHUNK, start - 2);
          return last < 0 ? 0 : last + LAST_CHUNK.length;
        }
        const total = start + Number(CONTENT_LENGTH.exec(headers)?.[1] ?? 0);
        return pending.length >= total ? total : 0;
      };
      const open = () => {
        pending = Buffer.alloc(0);
        socket = connect({ host: options.host, port: options.port, localAddress: options.localAddress, noDelay: true });
        socket.on('connect', send);
        socket.on('data', (chunk: Buffer) => {
          pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
          for (let length = answerLength(); length > 0; length = answerLength()) {
            const status = Number(pending.subarray(9, 12).toString('latin1'));
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
            answered++;
            inFlight = false;
            pending = pending.subarray(length);
            send();
          }
        });
        socket.on('error', reject);
        socket.on('close', () => {
          // A request the server closed on without answering is lost: send it again elsewhere.
          if (inFlight) next--;
          if (next < options.total) open();
          else resolve();
        });
      };
      open();
    });
  return Promise.all(Array.from({ length: options.connections }, loop)).then(() => {
    if (answered !== options.total) throw new Error(`flood: ${answered} answers to ${options.total} requests`);
    return statuses;
  });
}

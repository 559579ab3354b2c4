import { connect, type Socket } from 'node:net';

export interface Trickled {
  /** How many of the chunks went out before the server closed the connection. */
  sent: number;
  /** Everything the server answered. */
  answer: string;
}

/**
 * A slow client: opens a connection from `localAddress` and writes one chunk every `everyMs` until
 * all are sent or the server closes the connection. Resolves when the connection is closed (after
 * the last chunk it waits for the server to close it: a server with no timeout would hang here).
 */
export function trickle(url: string, chunks: string[], everyMs: number, localAddress: string): Promise<Trickled> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket: Socket = connect({ host: hostname, port: Number(port), localAddress });
    let sent = 0;
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    const next = () => {
      if (sent >= chunks.length || socket.destroyed) return;
      socket.write(chunks[sent++]);
      timer = setTimeout(next, everyMs);
    };
    socket.on('connect', next);
    socket.on('data', (data) => (answer += data.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ sent, answer });
    });
  });
}

/** Opens `count` connections from `localAddress` that send nothing; resolves once all are connected or refused. */
export async function idleConnections(url: string, count: number, localAddress: string): Promise<Socket[]> {
  const { hostname, port } = new URL(url);
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve) => {
          const socket = connect({ host: hostname, port: Number(port), localAddress });
          socket.on('error', () => undefined);
          socket.once('connect', () => resolve(socket));
          socket.once('close', () => resolve(socket));
        }),
    ),
  );
}

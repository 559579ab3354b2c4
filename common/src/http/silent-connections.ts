import type { Server } from 'node:net';

/**
 * Closes a connection that has not sent a single byte within `ms`. node's headersTimeout starts
 * with the first byte and its socket timeout (`server.timeout`) is reset by its own periodic
 * connection checks, so a client that connects and stays silent would hold its socket, and a
 * `maxConnections` slot, for ever (found by test/reliability/slow-and-many.test.ts). Once a byte
 * has arrived, headersTimeout and requestTimeout take over.
 */
export function closeSilentConnections(server: Server, ms: number): void {
  server.on('connection', (socket) => {
    const timer = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, ms);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}

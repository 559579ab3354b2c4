import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A fault-injecting loopback TCP proxy (issue 16, outages): put it between a process and a service it
 * depends on (PostgreSQL, Redis) and make the service vanish or go silent without touching the real
 * one, which other suites share.
 *
 * - `cut()`: every connection is closed at once, mid-conversation, and new ones are refused (accepted,
 *   then reset before a byte passes), as when the service's host goes away.
 * - `stall()`: connections stay open and new ones are accepted, but nothing is forwarded either way,
 *   as when the service hangs or a network drops packets silently.
 * - `restore()`: forwards again; connections held during a stall carry on where they were (bytes
 *   held back are delivered), new connections reach the service.
 *
 * Example:
 *   const proxy = await startFaultProxy(5432);
 *   // point the process at `127.0.0.1:${proxy.port}` …
 *   proxy.cut(); … proxy.restore();
 */
export interface FaultProxy {
  /** The proxy's own port on 127.0.0.1. */
  readonly port: number;
  /** `forwarding`, `cut` or `stalled`. */
  readonly state: ProxyState;
  /** Connections accepted since the start (a process reconnecting shows here). */
  readonly accepted: number;
  cut(): void;
  stall(): void;
  restore(): void;
  close(): Promise<void>;
}

export type ProxyState = 'forwarding' | 'cut' | 'stalled';

interface Pair {
  client: Socket;
  upstream: Socket;
  /** Bytes each way received while stalled, delivered on restore. */
  held: { toUpstream: Buffer[]; toClient: Buffer[] };
}

/** Starts a proxy on 127.0.0.1, port 0, forwarding to `targetPort` on `targetHost` (default loopback). */
export async function startFaultProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<FaultProxy> {
  let state: ProxyState = 'forwarding';
  let accepted = 0;
  const pairs = new Set<Pair>();

  const destroy = (pair: Pair) => {
    pairs.delete(pair);
    // Closed, not reset: resetAndDestroy on an established socket left node's handle open (node 20),
    // holding jest's process. A refused new connection is reset (below): no leak there.
    pair.client.destroy();
    pair.upstream.destroy();
  };

  const server: Server = createServer((client) => {
    accepted++;
    client.on('error', () => {});
    if (state === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ host: targetHost, port: targetPort, noDelay: true });
    upstream.on('error', () => {});
    const pair: Pair = { client, upstream, held: { toUpstream: [], toClient: [] } };
    pairs.add(pair);
    client.setNoDelay(true);
    client.on('data', (chunk: Buffer) => {
      if (state === 'stalled') pair.held.toUpstream.push(chunk);
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (state === 'stalled') pair.held.toClient.push(chunk);
      else client.write(chunk);
    });
    client.on('close', () => destroy(pair));
    upstream.on('close', () => destroy(pair));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  return {
    port,
    get state() {
      return state;
    },
    get accepted() {
      return accepted;
    },
    cut() {
      state = 'cut';
      for (const pair of [...pairs]) destroy(pair);
    },
    stall() {
      state = 'stalled';
    },
    restore() {
      state = 'forwarding';
      for (const pair of pairs) {
        for (const chunk of pair.held.toUpstream.splice(0)) pair.upstream.write(chunk);
        for (const chunk of pair.held.toClient.splice(0)) pair.client.write(chunk);
      }
    },
    async close() {
      state = 'cut';
      for (const pair of [...pairs]) destroy(pair);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerClientErrors } from './client-errors';
import { closeSilentConnections } from './silent-connections';

/**
 * What every svc process does to its HTTP server before it listens: requests node's parser refuses
 * are answered as problems, and a connection that stays silent is closed after `silentMs`.
 */
export function guardServer(server: Server, silentMs: number): void {
  answerClientErrors(server);
  closeSilentConnections(server, silentMs);
}

/** Listens on `host:port` (0 picks a free port) and resolves the origin, `http://host:port` (IPv6 in brackets). */
export async function listen(server: Server, port: number, host: string, protocol: 'http' | 'https' = 'http'): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return `${protocol}://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}

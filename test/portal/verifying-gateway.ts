import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ASSERTION_HEADER, verifyPrincipalAssertion, type VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import { MemoryNonceStore } from '../../common/src/memory-nonce-store';
import { PORTAL_SECRET } from './portal-helpers';

export interface VerifyingGateway {
  server: http.Server;
  /** `{gw}` of this stand-in, e.g. `http://127.0.0.1:1234/gw`. */
  url: string;
  close(): Promise<void>;
}

/**
 * An HTTP server standing where a gateway would: it reads each request's body and checks its
 * X-Svc-Principal with the gateway's own verifier (the demo portal's secret, single-use nonces),
 * then lets `answer` record and reply. A refused assertion reaches `answer` as 'refused'.
 */
export async function verifyingGateway(
  answer: (req: http.IncomingMessage, res: http.ServerResponse, principal: VerifiedPrincipal | 'refused', body: string) => void,
): Promise<VerifyingGateway> {
  const nonces = new MemoryNonceStore({ maxEntries: 1000 });
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', async () => {
      const principal = await verifyPrincipalAssertion(req.headers[ASSERTION_HEADER.toLowerCase()] as string, {
        method: req.method!,
        pathAndQuery: req.url!,
        now: Math.floor(Date.now() / 1000),
        portals: (id) => (id === 'demo-portal' ? [PORTAL_SECRET] : undefined),
        nonces,
      }).catch(() => 'refused' as const);
      answer(req, res, principal, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/gw`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

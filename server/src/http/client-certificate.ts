import { TLSSocket } from 'node:tls';
import type { Request } from 'express';
import { NO_PARTIES, type Audit } from '../audit';
import type { TrustedPeers } from '../authenticators/trusted-peers';
import type { ClientCertificates } from '../certificates/client-certificates';
import type { PresentedCertificate } from '../certificates/presented-certificate';
import { certificateFromXfcc, XfccError } from '../certificates/xfcc';

export const XFCC_HEADER = 'x-forwarded-client-cert';

/**
 * SPEC section 13. Only when client certificates are configured (`server.tls.clientCA`). The
 * `X-Forwarded-Client-Cert` header counts only when the connection's own peer (the socket's address,
 * not X-Forwarded-For: the proxy itself connects to us) is in `server.tls.xfccPeers`; from anyone
 * else it is ignored, with an audit line, and the handshake's own certificate (if any) is used.
 */
export interface CertificateDeps {
  /** Client certificate trust, undefined when `server.tls.clientCA` is not set. */
  clientCertificates(): ClientCertificates | undefined;
  /** `server.tls.xfccPeers`. */
  xfccPeers(): TrustedPeers;
  audit: Audit;
}

export function presentedCertificate(deps: CertificateDeps, req: Request): PresentedCertificate | undefined {
  if (!deps.clientCertificates()) return undefined;
  const header = req.headers[XFCC_HEADER];
  if (header !== undefined) {
    const socketPeer = req.socket.remoteAddress ?? '';
    if (deps.xfccPeers().has(socketPeer)) {
      try {
        // node joins repeated headers with ", ": still one list whose last element counts.
        return { via: 'xfcc', certificate: certificateFromXfcc(Array.isArray(header) ? header.join(', ') : header) };
      } catch (error) {
        if (!(error instanceof XfccError)) throw error;
        return { via: 'xfcc', unreadable: error.message };
      }
    }
    // Before authentication: no session or client yet.
    deps.audit.record({ ...NO_PARTIES, event: 'xfcc_ignored', outcome: 'failure', reason: 'untrusted_peer', peer: socketPeer });
  }
  if (!(req.socket instanceof TLSSocket)) return undefined;
  const certificate = req.socket.getPeerX509Certificate();
  return certificate ? { via: 'tls', certificate } : undefined;
}

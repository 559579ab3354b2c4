import { TLSSocket } from 'node:tls';
import type { Request } from 'express';
import { NO_PARTIES } from '../audit';
import type { Core } from '../core';
import type { PresentedCertificate } from '../certificates/presented-certificate';
import { certificateFromXfcc, XfccError } from '../certificates/xfcc';

export const XFCC_HEADER = 'x-forwarded-client-cert';


/**
 * SPEC section 13. Only when client certificates are configured (`server.tls.clientCA`). The
 * `X-Forwarded-Client-Cert` header counts only when the connection's own peer (the socket's address,
 * not X-Forwarded-For: the proxy itself connects to us) is in `server.tls.xfccPeers`; from anyone
 * else it is ignored, with an audit line, and the handshake's own certificate (if any) is used.
 */
export function presentedCertificate(core: Core, req: Request): PresentedCertificate | undefined {
  if (!core.clientCertificates) return undefined;
  const header = req.headers[XFCC_HEADER];
  if (header !== undefined) {
    const socketPeer = req.socket.remoteAddress ?? '';
    if (core.xfccPeers.has(socketPeer)) {
      try {
        // node joins repeated headers with ", ": still one list whose last element counts.
        return { via: 'xfcc', certificate: certificateFromXfcc(Array.isArray(header) ? header.join(', ') : header) };
      } catch (error) {
        if (!(error instanceof XfccError)) throw error;
        return { via: 'xfcc', unreadable: error.message };
      }
    }
    // Before authentication: no session or client yet.
    core.audit.record({ ...NO_PARTIES, event: 'xfcc_ignored', outcome: 'failure', reason: 'untrusted_peer', peer: socketPeer });
  }
  if (!(req.socket instanceof TLSSocket)) return undefined;
  const certificate = req.socket.getPeerX509Certificate();
  return certificate ? { via: 'tls', certificate } : undefined;
}

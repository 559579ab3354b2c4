import type { Request } from 'express';

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * The scheme and host a client reached the core at, for the addresses the core writes into a
 * document (SOAP's WSDL, SCIM's `meta.location`). Behind a proxy in `trustProxy` (SPEC 1), its
 * `X-Forwarded-Proto` and `X-Forwarded-Host` (the first of each list, read by express's `trust proxy`,
 * which listener.ts sets from the same list) name the scheme and host the client used, so a
 * TLS-terminating proxy's clients are sent to `https://` and not past the proxy; from any other peer
 * these headers are ignored. A host that is not a plain host[:port] (or a scheme other than
 * http/https) is not echoed: the direct one is used instead.
 */
export function publicOrigin(req: Request): string {
  const direct = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  const forwardedScheme = req.protocol; // the socket's own scheme unless a trusted peer forwarded one
  const scheme = forwardedScheme === 'http' || forwardedScheme === 'https' ? forwardedScheme : direct;
  const candidates = [req.host, req.headers.host];
  const host = candidates.find((h): h is string => typeof h === 'string' && HOST.test(h)) ?? `${req.socket.localAddress ?? '127.0.0.1'}:${req.socket.localPort ?? ''}`;
  return `${scheme}://${host}`;
}

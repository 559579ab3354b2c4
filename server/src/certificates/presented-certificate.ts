import type { X509Certificate } from 'node:crypto';

/**
 * The client certificate a request presented: from its own TLS handshake, or forwarded by a trusted
 * proxy (http/client-certificate.ts picks it; the login validates it).
 */
export type PresentedCertificate =
  | { via: 'tls' | 'xfcc'; certificate: X509Certificate }
  /** A trusted proxy forwarded something that is not a certificate: a presented certificate that fails. */
  | { via: 'xfcc'; unreadable: string };

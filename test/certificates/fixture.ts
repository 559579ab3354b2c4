/** The PKI and configuration the certificate suites share: made afresh by each suite, at test time. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addCertificateClients } from '../../bench/lib/pki';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { logLines, type LogLines } from '../helpers/log-lines';
import { TestCa, type Issued } from '../helpers/pki';

export { addCertificateClients };

const DAY = 24 * 3600 * 1000;

export interface Pki {
  dir: string;
  ca: TestCa;
  other: TestCa;
  serverCa: TestCa;
  server: Issued;
  /** Names client cert-app only: a session of the client, no principal. */
  app: Issued;
  /** cert-mail, e-mail SAN bob@example.com → employees/bob. */
  mail: Issued;
  /** cert-cn, subject CN alice → employees/alice. */
  cn: Issued;
  /** cert-mail, e-mail SAN of nobody. */
  ghost: Issued;
  expired: Issued;
  /** Same client URI, signed by another CA. */
  foreign: Issued;
  revoked: Issued;
  /** No `urn:svc:client:` URI. */
  noClient: Issued;
  /** Names svc-web, a client without a certificate authenticator. */
  webClient: Issued;
  /** For TLS servers only (extended key usage serverAuth). */
  serverUsage: Issued;
  crlPath: string;
  staleCrlPath: string;
  remove(): void;
}

export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pki-'));
  const ca = new TestCa(join(dir, 'ca'), 'svc test client CA');
  const other = new TestCa(join(dir, 'other'), 'svc test other CA');
  const serverCa = new TestCa(join(dir, 'server-ca'), 'svc test server CA');
  const client = (id: string) => [`urn:svc:client:${id}`];
  const revoked = ca.issue({ cn: 'revoked-app', uris: client('cert-app') });
  const pki: Omit<Pki, 'crlPath' | 'staleCrlPath' | 'remove'> = {
    dir,
    ca,
    other,
    serverCa,
    server: serverCa.issue({ cn: '127.0.0.1', ips: ['127.0.0.1'], usage: 'serverAuth' }),
    app: ca.issue({ cn: 'batch-job', uris: client('cert-app') }),
    mail: ca.issue({ cn: 'bob-laptop', uris: client('cert-mail'), emails: ['bob@example.com'] }),
    cn: ca.issue({ cn: 'alice', uris: client('cert-cn') }),
    ghost: ca.issue({ cn: 'ghost', uris: client('cert-mail'), emails: ['nobody@example.com'] }),
    expired: ca.issue({ cn: 'expired-app', uris: client('cert-app'), notBefore: new Date(Date.now() - 30 * DAY), notAfter: new Date(Date.now() - DAY) }),
    foreign: other.issue({ cn: 'foreign-app', uris: client('cert-app') }),
    revoked,
    noClient: ca.issue({ cn: 'no-client' }),
    webClient: ca.issue({ cn: 'web', uris: client('svc-web') }),
    serverUsage: ca.issue({ cn: 'server-usage', uris: client('cert-app'), usage: 'serverAuth' }),
  };
  return {
    ...pki,
    crlPath: ca.crl(join(dir, 'crl.pem'), [revoked]),
    staleCrlPath: ca.crl(join(dir, 'stale-crl.pem'), [], { stale: true }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A suite's PKI and the core that trusts it, with the core's log lines (audits) kept. */
export interface CertificateCore {
  pki: Pki;
  server: TestServer;
  log: LogLines;
}

/**
 * Makes a PKI and starts a core with the certificate clients, its `server.tls` being `tls(pki)` (the
 * server's files, the client CA, a CRL, proxy peers); `seed: false` leaves the store empty.
 */
export async function startCertificateCore(tls: (pki: Pki) => Record<string, unknown>, options: { seed?: false } = {}): Promise<CertificateCore> {
  const pki = makePki();
  const log = logLines();
  try {
    const server = await startTestServer({ logger: log.logger, seed: options.seed, configure: (doc) => addCertificateClients(doc, tls(pki)) });
    return { pki, server, log };
  } catch (error) {
    pki.remove();
    throw error;
  }
}

/** Stops what startCertificateCore started (either may be missing: its beforeAll failed). */
export async function stopCertificateCore(core: { pki?: Pki; server?: TestServer }): Promise<void> {
  await core.server?.stop();
  core.pki?.remove();
}

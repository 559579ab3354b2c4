/**
 * A throwaway PKI made at run time for the certificate tests and the bench (issue 17): keys from
 * node:crypto, certificates signed with node-forge, CRLs from Debian's `openssl ca -gencrl`
 * (node-forge cannot build CRLs). Nothing is checked in: every suite and bench run makes its own CA,
 * certificates and lists in a temporary directory.
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';

/** Whether Debian's openssl (which makes the CRLs) is installed. */
export function hasOpenssl(): boolean {
  return spawnSync('openssl', ['version'], { encoding: 'utf8' }).status === 0;
}

export interface Issued {
  certPem: string;
  keyPem: string;
  /** Upper-case hex without leading zeros, as svc's audit lines print it. */
  serial: string;
  subject: string;
  certPath: string;
  keyPath: string;
  notAfter: Date;
}

export interface CertificateSpec {
  cn: string;
  /** `urn:svc:client:<id>` etc. */
  uris?: string[];
  emails?: string[];
  /** IP SANs (a server certificate). */
  ips?: string[];
  notBefore?: Date;
  notAfter?: Date;
  /** Extended key usage; default clientAuth. */
  usage?: 'clientAuth' | 'serverAuth';
}

const DAY = 24 * 3600 * 1000;

function rsaKeys(): { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey; pem: string } {
  // node:crypto makes the key (forge's pure-JS RSA generation is slow on a busy CI machine); forge signs.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
  const key = forge.pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey;
  return { privateKey: key, publicKey: forge.pki.setRsaPublicKey(key.n, key.e), pem };
}

/** A positive serial, hex: 0x01 first so that it is never negative nor has a leading zero. */
function newSerial(): string {
  return '01' + randomBytes(8).toString('hex').toUpperCase();
}

/** `openssl ca`'s date format (UTCTime). */
function utc(date: Date): string {
  return date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
}

export class TestCa {
  readonly certPem: string;
  readonly keyPem: string;
  readonly certPath: string;
  readonly keyPath: string;
  private readonly cert: forge.pki.Certificate;
  private readonly key: forge.pki.rsa.PrivateKey;
  private readonly issued: Issued[] = [];

  constructor(readonly dir: string, readonly name: string) {
    mkdirSync(dir, { recursive: true });
    const keys = rsaKeys();
    const cert = forge.pki.createCertificate();
    cert.publicKey = keys.publicKey;
    cert.serialNumber = newSerial();
    cert.validity.notBefore = new Date(Date.now() - DAY);
    cert.validity.notAfter = new Date(Date.now() + 3650 * DAY);
    const attrs = [{ name: 'commonName', value: name }, { name: 'organizationName', value: 'svc tests' }];
    cert.setSubject(attrs);
    cert.setIssuer(attrs);
    cert.setExtensions([
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ]);
    cert.sign(keys.privateKey, forge.md.sha256.create());
    this.cert = cert;
    this.key = keys.privateKey;
    this.certPem = forge.pki.certificateToPem(cert);
    this.keyPem = keys.pem;
    this.certPath = join(dir, 'ca.pem');
    this.keyPath = join(dir, 'ca.key');
    writeFileSync(this.certPath, this.certPem);
    writeFileSync(this.keyPath, this.keyPem, { mode: 0o600 });
  }

  issue(spec: CertificateSpec): Issued {
    const keys = rsaKeys();
    const cert = forge.pki.createCertificate();
    cert.publicKey = keys.publicKey;
    cert.serialNumber = newSerial();
    cert.validity.notBefore = spec.notBefore ?? new Date(Date.now() - DAY);
    cert.validity.notAfter = spec.notAfter ?? new Date(Date.now() + 365 * DAY);
    cert.setSubject([{ name: 'commonName', value: spec.cn }, { name: 'organizationName', value: 'svc tests' }]);
    cert.setIssuer(this.cert.subject.attributes);
    const altNames = [
      ...(spec.uris ?? []).map((value) => ({ type: 6, value })),
      ...(spec.emails ?? []).map((value) => ({ type: 1, value })),
      ...(spec.ips ?? []).map((ip) => ({ type: 7, ip })),
    ];
    const usage = spec.usage ?? 'clientAuth';
    cert.setExtensions([
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', [usage]: true },
      ...(altNames.length ? [{ name: 'subjectAltName', altNames }] : []),
    ]);
    cert.sign(this.key, forge.md.sha256.create());
    const base = join(this.dir, `${spec.cn.replace(/[^A-Za-z0-9.-]/g, '_')}-${cert.serialNumber}`);
    const issued: Issued = {
      certPem: forge.pki.certificateToPem(cert),
      keyPem: keys.pem,
      serial: cert.serialNumber.toUpperCase().replace(/^0+/, ''),
      subject: `CN=${spec.cn}, O=svc tests`,
      certPath: `${base}.pem`,
      keyPath: `${base}.key`,
      notAfter: cert.validity.notAfter,
    };
    writeFileSync(issued.certPath, issued.certPem);
    writeFileSync(issued.keyPath, issued.keyPem, { mode: 0o600 });
    this.issued.push(issued);
    return issued;
  }

  /**
   * A CRL by `openssl ca -gencrl` listing `revoked`, written to `path`. `stale`: its nextUpdate is an
   * hour ago (lastUpdate two hours ago), as a CRL nobody renewed.
   */
  crl(path: string, revoked: readonly Issued[], options: { stale?: boolean } = {}): string {
    const dir = join(this.dir, `openssl-ca-${randomBytes(4).toString('hex')}`);
    mkdirSync(dir);
    const now = Date.now();
    const index = revoked.map((c) => {
      const serial = c.serial.length % 2 ? `0${c.serial}` : c.serial;
      return ['R', utc(c.notAfter), utc(new Date(now - 60_000)), serial, 'unknown', `/CN=${c.subject.slice(3, c.subject.indexOf(','))}/O=svc tests`].join('\t');
    });
    writeFileSync(join(dir, 'index.txt'), index.map((line) => line + '\n').join(''));
    writeFileSync(join(dir, 'crlnumber'), '01\n');
    const config = join(dir, 'openssl.cnf');
    writeFileSync(config, `[ ca ]\ndefault_ca = svc_test\n[ svc_test ]\ndatabase = ${join(dir, 'index.txt')}\ncrlnumber = ${join(dir, 'crlnumber')}\ndefault_md = sha256\ndefault_crl_days = 1\n`);
    const dates = options.stale ? ['-crl_lastupdate', utc(new Date(now - 2 * 3600_000)), '-crl_nextupdate', utc(new Date(now - 3600_000))] : ['-crldays', '1'];
    const run = spawnSync('openssl', ['ca', '-gencrl', '-batch', '-config', config, '-keyfile', this.keyPath, '-cert', this.certPath, '-out', path, ...dates], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`openssl ca -gencrl failed: ${run.stderr}`);
    return path;
  }
}

/** The three certificate authenticators and their clients, added to a demo-shaped document. */
export function addCertificateClients(doc: Record<string, unknown>, tls: Record<string, unknown>): void {
  const server = doc.server as Record<string, unknown>;
  server.tls = tls;
  (doc.authenticators as unknown[]).push(
    { id: 'certificate', kind: 'Token', variant: 'clientCertificate', sessionType: 'USER' },
    { id: 'certificate-mail', kind: 'Token', variant: 'clientCertificate', sessionType: 'USER', context: 'employees', options: { principalFrom: 'san-email' } },
    { id: 'certificate-cn', kind: 'Token', variant: 'clientCertificate', sessionType: 'USER', context: 'employees', options: { principalFrom: 'subject-cn' } },
  );
  (doc.clients as unknown[]).push(
    { id: 'cert-app', authenticators: ['certificate'], contexts: ['employees'] },
    { id: 'cert-mail', authenticators: ['certificate-mail'], contexts: ['employees'] },
    { id: 'cert-cn', authenticators: ['certificate-cn'], contexts: ['employees'] },
  );
}

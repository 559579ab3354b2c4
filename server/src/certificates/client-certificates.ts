import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { certificateFields } from './certificate-fields';
import { parseCrl, pemBlocks, type RevocationList } from './crl';
import { normaliseSerial } from './der';

/** `urn:svc:client:<clientId>`: how a certificate names its client (SPEC section 13). */
const CLIENT_URI = /^urn:svc:client:([A-Za-z0-9][A-Za-z0-9._-]{0,63})$/;
/** id-kp-clientAuth (RFC 5280 4.2.1.12). */
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

/** Who a certificate is, for audit lines: never its key, only what is public anyway. */
export interface CertificateSummary {
  serial: string;
  subject: string;
  issuer: string;
}

/** A certificate that passed every check: the client it names and the principal names it carries. */
export interface VerifiedCertificate extends CertificateSummary {
  clientId: string;
  emails: readonly string[];
  commonNames: readonly string[];
}

export type RejectionReason =
  | 'unknown_client'
  | 'client_mismatch'
  | 'no_certificate_authenticator'
  | 'untrusted_chain'
  | 'not_yet_valid'
  | 'expired'
  | 'not_for_client_auth'
  | 'no_crl'
  | 'crl_stale'
  | 'revoked'
  | 'no_client'
  | 'unreadable';

/** A presented certificate that fails a check: 401 invalid_client, audited with its serial and subject. */
export class CertificateRejected extends Error {
  constructor(
    readonly reason: RejectionReason,
    readonly summary?: CertificateSummary,
  ) {
    super(`certificate rejected: ${reason}`);
    this.name = 'CertificateRejected';
  }
}

const oneLine = (name: string) => name.replace(/\n/g, ', ');

export function summarise(certificate: X509Certificate): CertificateSummary {
  return { serial: normaliseSerial(certificate.serialNumber), subject: oneLine(certificate.subject), issuer: oneLine(certificate.issuer) };
}

/** The settings this reads (`server.tls`): file paths, read once per configuration (start, reload). */
export interface ClientCertificateSettings {
  clientCA: string;
  crl?: string;
}

/**
 * The trust of client certificates (SPEC section 13): the CAs of `tls.clientCA` and, with `tls.crl`,
 * their revocation lists, each verified against its issuer when loaded. Built anew on every
 * configuration load, so SIGHUP picks up a new CRL file; a file that does not load refuses the load.
 */
export class ClientCertificates {
  private readonly cas: readonly X509Certificate[];
  /** By the issuing CA's SHA-256 fingerprint; undefined when no CRL is configured. */
  private readonly crls?: ReadonlyMap<string, RevocationList>;

  constructor(settings: ClientCertificateSettings, read: (path: string) => string = (path) => readFileSync(path, 'utf8')) {
    this.cas = prefixed('clientCA', () => loadCas(read(settings.clientCA)));
    if (settings.crl !== undefined) this.crls = prefixed('crl', () => loadCrls(read(settings.crl!), this.cas));
  }

  /** The PEM of the CAs, for the TLS layer's certificate request (which CAs the client may answer with). */
  get caCertificates(): string[] {
    return this.cas.map((ca) => ca.toString());
  }

  /**
   * Every check of SPEC section 13, in order: a configured CA issued and signed it, it and that CA
   * are within their validity, it may serve client authentication, the issuer's CRL is fresh and
   * does not list it, and it names exactly one client. Throws CertificateRejected.
   */
  verify(certificate: X509Certificate, now: number): VerifiedCertificate {
    const summary = summarise(certificate);
    const reject = (reason: RejectionReason): never => {
      throw new CertificateRejected(reason, summary);
    };
    const issuer = this.cas.find((ca) => certificate.checkIssued(ca) && certificate.verify(ca.publicKey));
    if (!issuer) return reject('untrusted_chain');
    for (const c of [certificate, issuer]) {
      if (now < Date.parse(c.validFrom)) reject('not_yet_valid');
      if (now > Date.parse(c.validTo)) reject('expired');
    }
    const usages = certificate.keyUsage as string[] | undefined;
    if (usages !== undefined && usages.length > 0 && !usages.includes(CLIENT_AUTH)) reject('not_for_client_auth');
    if (this.crls) {
      const list = this.crls.get(issuer.fingerprint256);
      // With revocation configured, an issuer whose status cannot be known fails closed.
      if (!list) return reject('no_crl');
      if (list.nextUpdate !== undefined && now > list.nextUpdate) reject('crl_stale');
      if (list.revoked.has(summary.serial)) reject('revoked');
    }
    const fields = certificateFields(certificate);
    const clients = fields.uris.flatMap((uri) => CLIENT_URI.exec(uri)?.[1] ?? []);
    if (clients.length !== 1) return reject('no_client');
    return { ...summary, clientId: clients[0], emails: fields.emails, commonNames: fields.commonNames };
  }
}

/** Errors of one setting carry its name, so a refused start or reload says which file failed. */
function prefixed<T>(setting: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    throw new Error(`${setting}: ${(error as Error).message}`);
  }
}

function loadCas(pem: string): X509Certificate[] {
  const blocks = pemBlocks(pem, 'CERTIFICATE');
  if (blocks.length === 0) throw new Error('no PEM certificate in the file');
  const cas = blocks.map((der) => new X509Certificate(der));
  const notCa = cas.find((ca) => !ca.ca);
  if (notCa) throw new Error(`${oneLine(notCa.subject)} is not a CA certificate`);
  return cas;
}

function loadCrls(pem: string, cas: readonly X509Certificate[]): Map<string, RevocationList> {
  const lists = pemBlocks(pem, 'X509 CRL');
  if (lists.length === 0) throw new Error('no PEM CRL in the file');
  const crls = new Map<string, RevocationList>();
  for (const der of lists) {
    const list = parseCrl(der, cas);
    const known = crls.get(list.issuer.fingerprint256);
    // Two lists of one issuer: the newer one is the truth.
    if (!known || known.thisUpdate < list.thisUpdate) crls.set(list.issuer.fingerprint256, list);
  }
  return crls;
}

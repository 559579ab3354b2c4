import { verify, type X509Certificate } from 'node:crypto';
import { certificateFields } from './certificate-fields';
import { children, DerError, expectTag, isTime, parseDer, readBitString, readOid, readSerialHex, readTime, TAG } from './der';

/** A CRL whose signature verified against the CA that issued it (RFC 5280 section 5). */
export interface RevocationList {
  /** The issuing CA (one of `tls.clientCA`). */
  issuer: X509Certificate;
  thisUpdate: number;
  /** Epoch ms; past it the list is stale and every certificate of its issuer is refused. Absent: never stale. */
  nextUpdate?: number;
  /** Revoked serials, upper-case hex without leading zeros. */
  revoked: ReadonlySet<string>;
}

/** Signature algorithms by OID → node's digest name (null: the key type fixes it, as for Ed25519). */
const SIGNATURE_DIGESTS: Record<string, string | null> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

/** The PEM blocks of one type in a text (a bundle may hold several). */
export function pemBlocks(text: string, label: string): Buffer[] {
  const pattern = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+?)-----END ${label}-----`, 'g');
  return [...text.matchAll(pattern)].map((m) => Buffer.from(m[1].replace(/\s+/g, ''), 'base64'));
}

/**
 * Parses one DER CRL and verifies its signature against the CA among `cas` whose subject it names
 * as issuer. Throws (a configuration error: the file is refused) when it is malformed, names no
 * configured CA, or its signature does not verify.
 */
export function parseCrl(der: Buffer, cas: readonly X509Certificate[]): RevocationList {
  const [tbs, algorithm, signatureValue] = children(expectTag(parseDer(der), TAG.sequence, 'CertificateList'));
  const fields = children(expectTag(tbs, TAG.sequence, 'tbsCertList'));
  let i = fields[0]?.tag === TAG.integer ? 1 : 0; // version, present for v2
  const innerAlgorithm = expectTag(fields[i++], TAG.sequence, 'signature');
  const issuerName = expectTag(fields[i++], TAG.sequence, 'issuer');
  const thisUpdate = readTime(fields[i++]);
  const nextUpdate = isTime(fields[i]) ? readTime(fields[i++]) : undefined;
  const revoked = new Set<string>();
  if (fields[i]?.tag === TAG.sequence) {
    for (const entry of children(fields[i++])) revoked.add(readSerialHex(children(entry)[0]));
  }
  const oid = readOid(children(expectTag(algorithm, TAG.sequence, 'signatureAlgorithm'))[0]);
  if (!innerAlgorithm.raw.equals(algorithm.raw)) throw new DerError('the two signature algorithms differ');
  if (!(oid in SIGNATURE_DIGESTS)) throw new Error(`unsupported CRL signature algorithm ${oid}`);
  const issuer = cas.find((ca) => certificateFields(ca).subjectDer.equals(issuerName.raw));
  if (!issuer) throw new Error('the CRL is not issued by any certificate of tls.clientCA');
  if (!verify(SIGNATURE_DIGESTS[oid], tbs.raw, issuer.publicKey, readBitString(signatureValue))) {
    throw new Error(`the CRL's signature does not verify against ${issuer.subject.replace(/\n/g, ', ')}`);
  }
  return { issuer, thisUpdate, nextUpdate, revoked };
}

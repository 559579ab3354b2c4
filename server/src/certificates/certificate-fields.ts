import type { X509Certificate } from 'node:crypto';
import { children, DerError, expectTag, parseDer, readOid, TAG, type Der } from './der';

const OID = {
  commonName: '2.5.4.3',
  subjectAltName: '2.5.29.17',
} as const;

/** GeneralName's context tags (RFC 5280 4.2.1.6), primitive and implicit. */
const GENERAL_NAME = { rfc822Name: 0x81, uniformResourceIdentifier: 0x86 } as const;

/** What svc reads from a certificate beyond node's X509Certificate: raw names and the SAN's values. */
export interface CertificateFields {
  /** The subject Name's DER: a CRL names its issuer by these bytes. */
  subjectDer: Buffer;
  /** Every commonName value of the subject. */
  commonNames: string[];
  /** SAN URIs (`urn:svc:client:<id>`). */
  uris: string[];
  /** SAN e-mail addresses (rfc822Name). */
  emails: string[];
}

function stringValue(value: Der): string {
  switch (value.tag) {
    case TAG.utf8String:
      return value.content.toString('utf8');
    case TAG.printableString:
    case TAG.ia5String:
    case 0x14: // TeletexString: latin1 in practice
      return value.content.toString('latin1');
    case 0x1e: // BMPString: UTF-16BE
      return Buffer.from(value.content).swap16().toString('utf16le');
    default:
      throw new DerError('unsupported string type in a name');
  }
}

/** Every value of attribute `oid` in a Name (SEQUENCE OF SET OF AttributeTypeAndValue). */
function nameValues(name: Der, oid: string): string[] {
  const out: string[] = [];
  for (const rdn of children(expectTag(name, TAG.sequence, 'Name'))) {
    for (const pair of children(expectTag(rdn, TAG.set, 'RDN'))) {
      const [type, value] = children(pair);
      if (readOid(type) === oid) out.push(stringValue(value));
    }
  }
  return out;
}

/** Reads a certificate's tbsCertificate for its subject, CNs and SAN URIs and e-mails. */
export function certificateFields(certificate: X509Certificate): CertificateFields {
  const [tbs] = children(expectTag(parseDer(certificate.raw), TAG.sequence, 'Certificate'));
  const parts = children(expectTag(tbs, TAG.sequence, 'tbsCertificate'));
  // [0] version is optional (absent for v1); then serial, signature, issuer, validity, subject.
  const offset = parts[0]?.tag === 0xa0 ? 1 : 0;
  const subject = expectTag(parts[offset + 4], TAG.sequence, 'subject');
  const fields: CertificateFields = { subjectDer: Buffer.from(subject.raw), commonNames: nameValues(subject, OID.commonName), uris: [], emails: [] };
  const extensions = parts.find((p) => p.tag === 0xa3);
  if (!extensions) return fields;
  for (const extension of children(expectTag(children(extensions)[0], TAG.sequence, 'Extensions'))) {
    const items = children(extension);
    if (readOid(items[0]) !== OID.subjectAltName) continue;
    const value = expectTag(items[items.length - 1], TAG.octetString, 'extnValue');
    for (const general of children(expectTag(parseDer(value.content), TAG.sequence, 'GeneralNames'))) {
      if (general.tag === GENERAL_NAME.uniformResourceIdentifier) fields.uris.push(general.content.toString('latin1'));
      if (general.tag === GENERAL_NAME.rfc822Name) fields.emails.push(general.content.toString('latin1'));
    }
  }
  return fields;
}

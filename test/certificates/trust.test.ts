/**
 * The certificate trust's pieces without HTTP: CA bundles and CRLs as files are loaded (or refused
 * with the setting named), the configuration checks, and the X-Forwarded-Client-Cert parser.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClientCertificates } from '../../server/src/certificates/client-certificates';
import { certificateFromXfcc, parseXfccElement, XfccError } from '../../server/src/certificates/xfcc';
import { ConfigError, buildConfig } from '../../server/src/config/load';
import { testConfigDocument } from '../helpers/core-server';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { opensslRequirement } from '../helpers/pki';
import { describeWithService } from '../helpers/services';
import { addCertificateClients, makePki, type Pki } from './fixture';

jest.setTimeout(60_000);

describeWithService(opensslRequirement(), 'client certificate trust', () => {
  let pki: Pki;
  beforeAll(() => {
    pki = makePki();
  });
  afterAll(() => pki?.remove());

  const x509 = (pem: string) => new X509Certificate(pem);

  test('a CRL signed by another CA than the one it names, or by none of the bundle, is refused when loaded', () => {
    const otherCrl = pki.other.crl(join(pki.dir, 'other-crl.pem'), []);
    expect(() => new ClientCertificates({ clientCA: pki.ca.certPath, crl: otherCrl })).toThrow(/^crl: the CRL is not issued by any certificate of tls.clientCA/);
    // Both CAs in the bundle: the other CA's list now loads, and only that CA's certificates have a list.
    const bundle = join(pki.dir, 'bundle.pem');
    writeFileSync(bundle, pki.ca.certPem + pki.other.certPem);
    const trust = new ClientCertificates({ clientCA: bundle, crl: otherCrl });
    expect(trust.verify(x509(pki.foreign.certPem), Date.now()).clientId).toBe('cert-app');
    expect(() => trust.verify(x509(pki.app.certPem), Date.now())).toThrow('no_crl');
  });

  test('a CRL whose signature was altered is refused when loaded', () => {
    const der = Buffer.from(readFileSync(pki.crlPath, 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64');
    der[der.length - 10] ^= 0x80;
    const forged = join(pki.dir, 'forged.pem');
    writeFileSync(forged, `-----BEGIN X509 CRL-----\n${der.toString('base64')}\n-----END X509 CRL-----\n`);
    expect(() => new ClientCertificates({ clientCA: pki.ca.certPath, crl: forged })).toThrow(/^crl: the CRL's signature does not verify/);
  });

  test('truncated DER, an empty file and a leaf certificate as CA are refused with the setting named', () => {
    const der = Buffer.from(readFileSync(pki.crlPath, 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64');
    const truncated = join(pki.dir, 'truncated.pem');
    writeFileSync(truncated, `-----BEGIN X509 CRL-----\n${der.subarray(0, der.length - 20).toString('base64')}\n-----END X509 CRL-----\n`);
    expect(() => new ClientCertificates({ clientCA: pki.ca.certPath, crl: truncated })).toThrow(/^crl: DER: /);
    const empty = join(pki.dir, 'empty.pem');
    writeFileSync(empty, '');
    expect(() => new ClientCertificates({ clientCA: empty })).toThrow('clientCA: no PEM certificate');
    expect(() => new ClientCertificates({ clientCA: pki.app.certPath })).toThrow('is not a CA certificate');
    expect(() => new ClientCertificates({ clientCA: join(pki.dir, 'missing.pem') })).toThrow(/^clientCA: ENOENT/);
  });

  test('validity follows the clock given: a certificate not yet valid, and one past its end', () => {
    const trust = new ClientCertificates({ clientCA: pki.ca.certPath });
    const cert = x509(pki.app.certPem);
    expect(() => trust.verify(cert, Date.parse(cert.validFrom) - 1000)).toThrow('not_yet_valid');
    expect(() => trust.verify(cert, Date.parse(cert.validTo) + 1000)).toThrow('expired');
    expect(trust.verify(cert, Date.now())).toMatchObject({ clientId: 'cert-app', serial: pki.app.serial, subject: pki.app.subject });
  });

  test('configuration: every mistake is named by its path', async () => {
    const doc = await testConfigDocument(join(pki.dir, 'data'), new PasswordHasher({ argon2: { memoryCost: 1024, timeCost: 1, parallelism: 1 } }));
    const problems = (tls: Record<string, unknown>, change?: (d: Record<string, unknown>) => void): string[] => {
      const copy = structuredClone(doc);
      addCertificateClients(copy, tls);
      change?.(copy);
      try {
        buildConfig(copy, {});
        return [];
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        return error.problems;
      }
    };
    expect(problems({ clientCA: pki.ca.certPath, crl: pki.crlPath, xfccPeers: ['127.0.0.1/32'] })).toEqual([]);
    expect(problems({ crl: pki.crlPath })).toEqual(expect.arrayContaining([expect.stringMatching(/crl/)]));
    expect(problems({ cert: pki.server.certPath, clientCA: pki.ca.certPath })).toEqual(expect.arrayContaining([expect.stringMatching(/server\.tls.*key/)]));
    expect(problems({ clientCA: pki.ca.certPath, xfccPeers: ['not-an-address'] })).toEqual(['server.tls.xfccPeers: "not-an-address" is not a CIDR']);
    expect(problems({ xfccPeers: ['127.0.0.1'] })).toEqual(expect.arrayContaining(['server.tls.xfccPeers: forwarded client certificates need server.tls.clientCA to verify them']));
    const certificateAuthenticators = (d: Record<string, unknown>) => (d.authenticators as Array<Record<string, unknown>>).filter((a) => a.variant === 'clientCertificate');
    expect(problems({ clientCA: pki.ca.certPath }, (d) => (certificateAuthenticators(d)[1].options = { principalFrom: 'san-dns' }))).toEqual([
      expect.stringMatching(/^authenticators\[\d+\]\.options\.principalFrom: must be "san-email" or "subject-cn"$/),
    ]);
    expect(problems({ clientCA: pki.ca.certPath }, (d) => delete certificateAuthenticators(d)[1].context)).toEqual([expect.stringMatching(/^authenticators\[\d+\]\.context: variant "clientCertificate" needs a context$/)]);
    expect(problems({ cert: pki.server.certPath, key: pki.server.keyPath })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^authenticators\[\d+\]: the clientCertificate authenticator needs server.tls.clientCA$/)]),
    );
  });

  describe('X-Forwarded-Client-Cert', () => {
    const cert = () => encodeURIComponent(pki.app.certPem);

    test('quoted values may hold , ; = and escaped quotes; keys are case-insensitive', () => {
      const pairs = parseXfccElement('By=spiffe://a;Subject="CN=x, O=\\"q;r\\"=s";URI=urn:a');
      expect(pairs.get('subject')).toEqual(['CN=x, O="q;r"=s']);
      expect(pairs.get('by')).toEqual(['spiffe://a']);
      const header = `By=x;Subject="a,b;c";cert="${cert()}"`;
      expect(certificateFromXfcc(header).serialNumber.replace(/^0+/, '')).toBe(pki.app.serial);
    });

    test('the last element, and only its Cert', () => {
      const last = `Cert="${cert()}",Hash=00;Subject="CN=x"`;
      expect(() => certificateFromXfcc(last)).toThrow('no Cert in the last element');
      expect(certificateFromXfcc(`Hash=00,Cert="${cert()}"`).subject).toContain('CN=batch-job');
    });

    test.each([
      ['empty', () => '', 'empty'],
      ['an open quote', () => 'Cert="abc', 'unterminated quote'],
      ['a pair without a key', () => '=x', 'a pair without a key'],
      ['a bad percent-encoding', () => 'Cert=%E0%A4%A', 'not URL-encoded'],
      ['a PEM that is no certificate', () => `Cert="${encodeURIComponent('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----')}"`, 'does not parse'],
      ['two certificates in one Cert', () => `Cert="${encodeURIComponent(pki.app.certPem + pki.mail.certPem)}"`, 'not one PEM certificate'],
      ['64 KiB and more', () => 'x'.repeat(70_000), 'too long'],
    ])('malformed: %s', (_what, header, message) => {
      expect(() => certificateFromXfcc(header())).toThrow(XfccError);
      expect(() => certificateFromXfcc(header())).toThrow(message);
    });
  });
});

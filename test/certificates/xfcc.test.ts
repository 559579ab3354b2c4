/**
 * A TLS-terminating proxy's X-Forwarded-Client-Cert (SPEC section 13): the core speaks plain HTTP
 * behind it; the header counts only from `server.tls.xfccPeers` (127.0.0.1 here), and its last
 * element's `Cert` is verified like a handshake's. The other peer is 127.0.0.2: every 127/8 address
 * reaches a server listening on 127.0.0.1, and the server sees that address on the socket.
 */
import type { TestServer } from '../helpers/core-server';
import type { LogLines } from '../helpers/log-lines';
import { opensslRequirement, type Issued } from '../helpers/pki';
import { describeWithService } from '../helpers/services';
import { rawSend } from '../helpers/tls-http';
import { startCertificateCore, stopCertificateCore, type Pki } from './fixture';

jest.setTimeout(60_000);

/** One element as Envoy writes it: the proxy's own SPIFFE id, a hash, the URL-encoded PEM, the subject. */
const element = (cert: Issued, extra = '') => `By=spiffe://proxy.example/envoy;Hash=${'ab'.repeat(32)};Cert="${encodeURIComponent(cert.certPem)}";Subject="${cert.subject}";URI=urn:svc:client:forged${extra}`;

describeWithService(opensslRequirement(), 'X-Forwarded-Client-Cert behind a TLS-terminating proxy', () => {
  let pki: Pki;
  let server: TestServer;
  let log: LogLines;
  let base: string;

  beforeAll(async () => {
    ({ pki, server, log } = await startCertificateCore((made) => ({ clientCA: made.ca.certPath, crl: made.crlPath, xfccPeers: ['127.0.0.1/32'] })));
    base = server.baseUrl;
    expect(base.startsWith('http://')).toBe(true);
  });

  afterAll(() => stopCertificateCore({ pki, server }));

  const login = (xfcc: string, localAddress: string, form: Record<string, string> = {}) => rawSend(`${base}/login`, { form, localAddress, headers: { 'x-forwarded-client-cert': xfcc } });

  test('from a peer in tls.xfccPeers, the forwarded certificate logs in after it is verified', async () => {
    const answer = await login(element(pki.mail), '127.0.0.1');
    expect(answer.status).toBe(200);
    expect(answer.json?.session).toMatchObject({ clientId: 'cert-mail', principal: { uniqueId: 'bob' }, level: 1 });
    expect(log.audits().filter((a) => a.event === 'login').pop()).toMatchObject({ outcome: 'success', via: 'xfcc', serial: pki.mail.serial, subject: pki.mail.subject });
  });

  test('from a peer outside tls.xfccPeers, the header is ignored (and audited): no certificate was presented', async () => {
    const before = log.audits().filter((a) => a.event === 'xfcc_ignored').length;
    const anonymous = await login(element(pki.mail), '127.0.0.2');
    expect(anonymous.status).toBe(200);
    expect(anonymous.json?.session).toMatchObject({ type: 'ANON', principal: null, level: 0 });
    const named = await login(element(pki.mail), '127.0.0.2', { clientid: 'cert-mail' });
    expect([named.status, named.json?.code]).toEqual([401, 'login_failed']);
    const ignored = log.audits().filter((a) => a.event === 'xfcc_ignored');
    expect(ignored.length).toBe(before + 2);
    expect(ignored.pop()).toMatchObject({ reason: 'untrusted_peer', peer: '127.0.0.2' });
  });

  test.each([
    ['foreign', 'untrusted_chain'],
    ['revoked', 'revoked'],
    ['expired', 'expired'],
  ] as const)('from a trusted peer, a forwarded %s certificate is invalid_client like a handshake one', async (name, reason) => {
    const answer = await login(element(pki[name]), '127.0.0.1');
    expect([answer.status, answer.json?.code]).toEqual([401, 'invalid_client']);
    expect(log.audits().filter((a) => a.event === 'client_validation').pop()).toMatchObject({ reason: `certificate:${reason}`, serial: pki[name].serial, via: 'xfcc' });
  });

  test('only the last element counts', async () => {
    const lastGood = await login(`${element(pki.foreign)},${element(pki.mail)}`, '127.0.0.1');
    expect(lastGood.status).toBe(200);
    const lastBad = await login(`${element(pki.mail)},${element(pki.foreign)}`, '127.0.0.1');
    expect([lastBad.status, lastBad.json?.code]).toEqual([401, 'invalid_client']);
  });

  test.each([
    ['no Cert', `By=spiffe://proxy;Hash=${'ab'.repeat(32)};Subject="CN=bob-laptop"`],
    ['a Cert that is not PEM', 'Cert="not%20a%20certificate"'],
    ['a broken quote', 'Cert="-----BEGIN'],
    ['two Certs', `Cert=a;Cert=b`],
  ])('from a trusted peer, %s is invalid_client (fails closed)', async (_what, header) => {
    const answer = await login(header, '127.0.0.1');
    expect([answer.status, answer.json?.code]).toEqual([401, 'invalid_client']);
    expect(log.audits().filter((a) => a.event === 'client_validation').pop()).toMatchObject({ reason: 'certificate:unreadable', via: 'xfcc' });
  });

  test("the proxy's Subject and URI are not believed: the certificate's own SAN names the client", async () => {
    const answer = await login(element(pki.app, ';URI=urn:svc:client:cert-mail'), '127.0.0.1');
    expect(answer.json?.session).toMatchObject({ clientId: 'cert-app', principal: null });
  });
});

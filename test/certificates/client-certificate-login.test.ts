/**
 * X.509 client certificates on a real HTTPS core (SPEC section 13, issue 17): a PKI made at test time,
 * each certificate presented in a real TLS handshake, and every refusal checked for its code and its
 * audit line (serial and subject).
 */
import { ClientSealer } from '../../client/src/clientcred/sealer';
import { TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import type { LogLines } from '../helpers/log-lines';
import { sealedParams } from '../helpers/login';
import { opensslRequirement, type Issued } from '../helpers/pki';
import { describeWithService } from '../helpers/services';
import { rawSend, type RawOptions } from '../helpers/tls-http';
import { startCertificateCore, stopCertificateCore, type Pki } from './fixture';

jest.setTimeout(60_000);

describeWithService(opensslRequirement(), 'client certificates over HTTPS', () => {
  let pki: Pki;
  let server: TestServer;
  let log: LogLines;
  let base: string;

  beforeAll(async () => {
    ({ pki, server, log } = await startCertificateCore((made) => ({ cert: made.server.certPath, key: made.server.keyPath, clientCA: made.ca.certPath, crl: made.crlPath })));
    base = server.baseUrl;
  });

  afterAll(() => stopCertificateCore({ pki, server }));

  const withCert = (cert: Issued | undefined, options: RawOptions = {}): RawOptions => ({ ca: pki.serverCa.certPem, ...(cert ? { cert: cert.certPem, key: cert.keyPem } : {}), ...options });
  const login = (cert: Issued | undefined, form: Record<string, string> = {}, options: RawOptions = {}) => rawSend(`${base}/login`, withCert(cert, { form, ...options }));
  const lastAudit = (event: string) => log.audits().filter((a) => a.event === event).pop();
  /** A refused login may leave the default client's ANON session (the filter's), never more. */
  const expectNoLogin = async (cookie: string | undefined) => {
    if (cookie === undefined || cookie === '') return;
    const session = await rawSend(`${base}/resources/session`, withCert(undefined, { cookie }));
    expect(session.json?.session).toMatchObject({ type: 'ANON', principal: null, level: 0 });
  };

  test('a certificate naming a principal by e-mail logs in at level 1, and the session is checked like any other', async () => {
    const answer = await login(pki.mail);
    expect(answer.status).toBe(200);
    expect(answer.json?.session).toMatchObject({ type: 'USER', clientId: 'cert-mail', principal: { uniqueId: 'bob', contextId: 'employees' }, level: 1 });
    expect(lastAudit('login')).toMatchObject({ outcome: 'success', reason: 'certificate-mail', principal: 'employees/bob', serial: pki.mail.serial, subject: pki.mail.subject, via: 'tls' });
    // The session is a cookie like any other: no certificate is needed for later requests.
    const cookie = answer.cookie!;
    const own = await rawSend(`${base}/resources/contexts/employees/subjects/bob`, withCert(undefined, { cookie }));
    expect(own.status).toBe(200);
    expect((own.json?.subject as Record<string, unknown>).uniqueId).toBe('bob');
    const allowed = await rawSend(`${base}/resources/contexts/employees/subjects/bob?isAllowed=READ`, withCert(undefined, { cookie }));
    expect([allowed.status, allowed.json?.decision]).toEqual([200, 'ALLOW']);
    const denied = await rawSend(`${base}/resources/contexts/employees/subjects/alice?isAllowed=READ`, withCert(undefined, { cookie }));
    expect([denied.status, denied.json?.decision, denied.headers['x-svc-decision']]).toEqual([401, 'DENY', 'DENY']);
    const other = await rawSend(`${base}/resources/contexts/employees/subjects/alice`, withCert(undefined, { cookie }));
    expect([other.status, other.json?.code]).toEqual([401, 'access_denied']);
  });

  test('a certificate naming a principal by subject CN: alice, with her admin role', async () => {
    const answer = await login(pki.cn);
    expect(answer.status).toBe(200);
    expect(answer.json?.session).toMatchObject({ clientId: 'cert-cn', principal: { uniqueId: 'alice' }, level: 1 });
    const check = await rawSend(`${base}/resources/contexts/employees/subjects/bob?isAllowed=DELETE`, withCert(undefined, { cookie: answer.cookie }));
    expect(check.json?.decision).toBe('ALLOW');
  });

  test('a certificate without principalFrom is a session of its client, with no principal', async () => {
    const answer = await login(pki.app);
    expect(answer.status).toBe(200);
    expect(answer.json?.session).toMatchObject({ clientId: 'cert-app', principal: null, level: 1 });
    const read = await rawSend(`${base}/resources/contexts/employees/subjects/bob`, withCert(undefined, { cookie: answer.cookie }));
    expect(read.status).toBe(401);
  });

  test.each([
    ['expired', 'expired'],
    ['foreign', 'untrusted_chain'],
    ['revoked', 'revoked'],
    ['noClient', 'no_client'],
    ['webClient', 'no_certificate_authenticator'],
    ['serverUsage', 'not_for_client_auth'],
  ] as const)('the %s certificate is 401 invalid_client, audited with its serial and subject (%s)', async (name, reason) => {
    const cert = pki[name];
    const answer = await login(cert);
    expect([answer.status, answer.json?.code]).toEqual([401, 'invalid_client']);
    await expectNoLogin(answer.cookie);
    expect(lastAudit('client_validation')).toMatchObject({ outcome: 'failure', reason: `certificate:${reason}`, serial: cert.serial, subject: cert.subject, via: 'tls' });
    // Never the key, in any line.
    expect(JSON.stringify(log.audits())).not.toContain(cert.keyPem.split('\n')[1]);
  });

  test('a certificate naming a client other than the clientid given is invalid_client', async () => {
    const answer = await login(pki.mail, { clientid: 'cert-app' });
    expect([answer.status, answer.json?.code]).toEqual([401, 'invalid_client']);
    expect(lastAudit('client_validation')).toMatchObject({ reason: 'certificate:client_mismatch', serial: pki.mail.serial });
  });

  test('a named principal that does not resolve is 401 login_failed', async () => {
    const answer = await login(pki.ghost);
    expect([answer.status, answer.json?.code]).toEqual([401, 'login_failed']);
    expect(lastAudit('login')).toMatchObject({ outcome: 'failure', reason: 'rejected', serial: pki.ghost.serial, subject: pki.ghost.subject });
  });

  test.each([
    ['a user (client principal)', { user: 'employees/bob' }],
    ['a user and a password', { user: 'bob', password: TEST_CREDENTIALS.users.bob }],
    ['a password', { password: 'x' }],
    ['a token', { token: 'x' }],
  ])('a certificate with %s is 400, and nobody is logged in', async (_what, form) => {
    const answer = await login(pki.mail, form);
    expect([answer.status, answer.json?.code]).toEqual([400, 'invalid_request']);
    await expectNoLogin(answer.cookie);
  });

  test('a certificate with a clientcred is 400: the certificate is the client validation', async () => {
    const sealer = new ClientSealer('svc-api', TEST_CREDENTIALS.clients['svc-api']);
    const answer = await login(pki.mail, sealedParams(sealer, {}));
    expect([answer.status, answer.json?.code]).toEqual([400, 'invalid_request']);
    expect((answer.json?.errors as Array<{ path: string }>).map((e) => e.path)).toEqual(['clientcred']);
  });

  test('without a certificate the authenticator does not apply: a password login over the same TLS works as before', async () => {
    const answer = await login(undefined, { clientid: 'svc-web', user: 'bob', password: TEST_CREDENTIALS.users.bob });
    expect(answer.status).toBe(200);
    expect(answer.json?.session).toMatchObject({ clientId: 'svc-web', level: 2 });
    const certOnly = await login(undefined, { clientid: 'cert-mail' });
    expect([certOnly.status, certOnly.json?.code]).toEqual([401, 'login_failed']);
  });

  test('a certificate login ends the session the request carried (fixation)', async () => {
    const first = await login(pki.mail);
    const second = await login(pki.mail, {}, { cookie: first.cookie });
    expect(second.status).toBe(200);
    expect(second.cookie).not.toBe(first.cookie);
    const old = await rawSend(`${base}/resources/session`, withCert(undefined, { cookie: first.cookie }));
    expect((old.json?.session as Record<string, unknown> | undefined)?.principal ?? null).toBeNull();
  });
});

describeWithService(opensslRequirement(), 'a stale CRL', () => {
  let pki: Pki;
  let server: TestServer;
  let log: LogLines;

  beforeAll(async () => {
    ({ pki, server, log } = await startCertificateCore((made) => ({ cert: made.server.certPath, key: made.server.keyPath, clientCA: made.ca.certPath, crl: made.staleCrlPath }), { seed: false }));
  });

  afterAll(() => stopCertificateCore({ pki, server }));

  test('fails closed: a valid certificate of its issuer is refused', async () => {
    const answer = await rawSend(`${server.baseUrl}/login`, { ca: pki.serverCa.certPem, cert: pki.app.certPem, key: pki.app.keyPem, form: {} });
    expect([answer.status, answer.json?.code]).toEqual([401, 'invalid_client']);
    expect(log.audits().filter((a) => a.event === 'client_validation').pop()).toMatchObject({ reason: 'certificate:crl_stale', serial: pki.app.serial });
  });
});

/**
 * The CRL is read again on SIGHUP, by a real `svc server` process, without a restart (SPEC section
 * 13): a certificate revoked in the new list is refused at once; a list whose signature does not
 * verify is refused as a whole, and the running one stays.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testConfigDocument } from '../helpers/core-server';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { opensslRequirement, type Issued } from '../helpers/pki';
import { describeWithService } from '../helpers/services';
import { loggedEntry, startSvc, stopSvc, type Running } from '../helpers/svc-process';
import { rawSend } from '../helpers/tls-http';
import { addCertificateClients, makePki, type Pki } from './fixture';

jest.setTimeout(120_000);

describeWithService(opensslRequirement(), 'CRL reload on SIGHUP (a real svc server)', () => {
  let pki: Pki;
  let core: Running & { ready: string };
  let crlPath: string;
  let second: Issued;

  beforeAll(async () => {
    pki = makePki();
    second = pki.ca.issue({ cn: 'second-job', uris: ['urn:svc:client:cert-app'] });
    crlPath = pki.ca.crl(join(pki.dir, 'live-crl.pem'), []);
    const doc = await testConfigDocument(join(pki.dir, 'data'), new PasswordHasher({ argon2: { memoryCost: 1024, timeCost: 1, parallelism: 1 } }));
    addCertificateClients(doc, { cert: pki.server.certPath, key: pki.server.keyPath, clientCA: pki.ca.certPath, crl: crlPath });
    const configFile = join(pki.dir, 'core.json');
    writeFileSync(configFile, JSON.stringify(doc));
    core = await startSvc(['server', '--config', configFile, '--port', '0'], {}, (entry) => (entry.msg === 'core server listening' ? `${String(entry.url)}/svc` : undefined));
  });

  afterAll(async () => {
    if (core) await stopSvc(core);
    pki?.remove();
  });

  const login = (cert: Issued) => rawSend(`${core.ready}/login`, { ca: pki.serverCa.certPem, cert: cert.certPem, key: cert.keyPem, form: {} });

  /** Sends SIGHUP and waits for the process to say how the reload went. */
  async function hangUp(): Promise<string> {
    const from = core.log.length;
    core.child.kill('SIGHUP');
    for (;;) {
      const said = core.log.slice(from).map((line) => JSON.parse(line) as { msg?: string }).find((e) => e.msg === 'configuration reloaded' || e.msg?.startsWith('reload refused'));
      if (said) return said.msg!;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  test('a certificate revoked in the reloaded CRL is refused without a restart; a forged CRL is refused and the running one stays', async () => {
    expect((await login(pki.app)).status).toBe(200);
    expect((await login(second)).status).toBe(200);
    const pid = core.child.pid;

    pki.ca.crl(crlPath, [pki.app]);
    expect(await hangUp()).toBe('configuration reloaded');
    const revoked = await login(pki.app);
    expect([revoked.status, revoked.json?.code]).toEqual([401, 'invalid_client']);
    expect((await login(second)).status).toBe(200);
    expect(core.child.pid).toBe(pid);
    const audit = await loggedEntry(core, (e) => e.event === 'client_validation' && e.reason === 'certificate:revoked');
    expect(audit).toMatchObject({ reason: 'certificate:revoked', serial: pki.app.serial, subject: pki.app.subject });

    // The same list with one byte of its signature changed: refused as a whole.
    const pem = readFileSync(crlPath, 'utf8');
    const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    der[der.length - 5] ^= 0x01;
    writeFileSync(crlPath, `-----BEGIN X509 CRL-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END X509 CRL-----\n`);
    expect(await hangUp()).toMatch(/^reload refused/);
    const refusal = core.log.map((line) => JSON.parse(line) as Record<string, unknown>).filter((e) => String(e.msg).startsWith('reload refused')).pop();
    expect(JSON.stringify(refusal?.problems)).toContain('server.tls.crl');
    expect((await login(pki.app)).status).toBe(401);
    expect((await login(second)).status).toBe(200);
  });
});

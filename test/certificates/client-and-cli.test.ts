/**
 * The client library's certificate connection and `svc cli login --cert --key --ca` against a real
 * HTTPS core whose server certificate comes from the suite's own CA (SPEC section 13).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '../../client/src/connection';
import { SvcClientError } from '../../client/src/errors';
import type { TestServer } from '../helpers/core-server';
import { opensslRequirement } from '../helpers/pki';
import { describeWithService } from '../helpers/services';
import { runCli } from '../helpers/svc-process';
import { startCertificateCore, stopCertificateCore, type Pki } from './fixture';

// Each CLI step starts a node process; beside other suites on two cores that takes a while.
jest.setTimeout(120_000);

describeWithService(opensslRequirement(), 'certificate connections: client library and svc cli', () => {
  let pki: Pki;
  let server: TestServer;
  let home: string;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'svc-cli-cert-'));
    ({ pki, server } = await startCertificateCore((made) => ({ cert: made.server.certPath, key: made.server.keyPath, clientCA: made.ca.certPath, crl: made.crlPath })));
  });

  afterAll(async () => {
    await stopCertificateCore({ pki, server });
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test('Connection.open({kind: "certificate", cert, key, ca}) logs in as the principal the certificate names', async () => {
    const conn = await Connection.open({ kind: 'certificate', cert: pki.mail.certPem, key: pki.mail.keyPem, ca: pki.serverCa.certPem }, { config: { baseUrl: server.baseUrl }, contextId: 'employees' });
    try {
      expect(conn.kind).toBe('certificate');
      expect(await conn.session()).toMatchObject({ clientId: 'cert-mail', principal: { uniqueId: 'bob', contextId: 'employees' }, level: 1 });
      expect((await conn.get('bob')).uniqueId).toBe('bob');
      expect(await conn.isAllowed('READ', 'bob')).toBe(true);
      expect(await conn.isAllowed('READ', 'alice')).toBe(false);
    } finally {
      await conn.close();
    }
  });

  test('a revoked certificate fails to open with invalid_client', async () => {
    const opening = Connection.open({ kind: 'certificate', cert: pki.revoked.certPem, key: pki.revoked.keyPem, ca: pki.serverCa.certPem }, { config: { baseUrl: server.baseUrl } });
    await expect(opening).rejects.toBeInstanceOf(SvcClientError);
    await expect(opening).rejects.toMatchObject({ code: 'invalid_client', status: 401 });
  });

  test('the caller mistakes are TypeErrors: no key, or plain http', async () => {
    await expect(Connection.open({ kind: 'certificate', cert: pki.mail.certPem, key: '' }, { config: { baseUrl: server.baseUrl } })).rejects.toThrow(TypeError);
    await expect(Connection.open({ kind: 'certificate', cert: pki.mail.certPem, key: pki.mail.keyPem }, { config: { baseUrl: 'http://127.0.0.1:1/svc' } })).rejects.toThrow('https');
  });

  const cli = (args: string[]) => runCli(home, args);

  test('svc cli login --cert --key --ca, then commands on the saved session', async () => {
    const login = await cli(['login', '--base-url', server.baseUrl, '--cert', pki.cn.certPath, '--key', pki.cn.keyPath, '--ca', pki.serverCa.certPath]);
    expect(login).toMatchObject({ code: 0, stderr: '' });
    expect(login.stdout).toMatch(/^user\s+alice \(employees\)$/m);
    // The session file keeps the paths, never the key itself.
    const saved = readFileSync(join(home, 'session.json'), 'utf8');
    expect(saved).toContain(pki.cn.keyPath);
    expect(saved).not.toContain(pki.cn.keyPem.split('\n')[1]);
    const whoami = await cli(['whoami', '--json']);
    expect(whoami.code).toBe(0);
    expect(JSON.parse(whoami.stdout)).toMatchObject({ clientId: 'cert-cn', level: 1, principal: { uniqueId: 'alice' } });
    const can = await cli(['can', 'DELETE', 'bob']);
    expect(can.code).toBe(0);
    expect((await cli(['logout'])).stdout).toBe('logged out\n');
  });

  test('svc cli with a certificate from another CA fails with invalid_client, and --cert needs --key', async () => {
    const refused = await cli(['login', '--base-url', server.baseUrl, '--cert', pki.foreign.certPath, '--key', pki.foreign.keyPath, '--ca', pki.serverCa.certPath]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^svc cli: invalid_client \(401\)/);
    const usage = await cli(['login', '--base-url', server.baseUrl, '--cert', pki.mail.certPath]);
    expect(usage.code).toBe(2);
  });
});

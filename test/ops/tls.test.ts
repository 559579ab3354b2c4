import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { Agent, fetch as undiciFetch } from 'undici';
import { startTestServer } from '../helpers/core-server';

/** A throw-away self-signed certificate for 127.0.0.1. */
function selfSigned(dir: string): { cert: string; key: string } {
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 3_600_000);
  const name = [{ name: 'commonName', value: '127.0.0.1' }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const files = { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
  writeFileSync(files.cert, forge.pki.certificateToPem(cert));
  writeFileSync(files.key, forge.pki.privateKeyToPem(keys.privateKey));
  return files;
}

test('with tls configured the core serves HTTPS and marks the session cookie Secure', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  const tls = selfSigned(dir);
  const server = await startTestServer({ configure: (doc) => Object.assign(doc.server as object, { tls }) });
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  try {
    expect(server.url).toMatch(/^https:\/\//);
    const res = await undiciFetch(`${server.baseUrl}/resources/session`, { dispatcher });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
  } finally {
    await dispatcher.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

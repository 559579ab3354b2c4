import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { ClientSealer } from '../../client/src/clientcred/sealer';
import { withCore, type CoreUnderTest } from '../lib/core';
import { hasOpenssl, TestCa } from '../lib/pki';
import { rawLoop, type RawLoopOptions } from '../lib/raw-loop';
import { loadRow, type Row, type Scenario, type ScenarioContext } from '../lib/scenario';
import { BENCH_CREDENTIALS, BENCH_GATEWAY_CLIENT } from '../servers/core-shared';

const CLIENTCRED_LOGIN = 'login with clientcred (client principal, level 1; TLS keep-alive)';
const CLIENTCRED_CHECK = 'check HEAD + X-Operation READ, clientcred session (TLS)';

/** The PKI of one run: the server's certificate and bob's client certificate (cert-mail, e-mail SAN). */
function makePki(dir: string) {
  const ca = new TestCa(join(dir, 'ca'), 'svc bench client CA');
  const serverCa = new TestCa(join(dir, 'server-ca'), 'svc bench server CA');
  const server = serverCa.issue({ cn: '127.0.0.1', ips: ['127.0.0.1'], usage: 'serverAuth' });
  const bob = ca.issue({ cn: 'bench-bob', uris: ['urn:svc:client:cert-mail'], emails: ['bob@example.com'] });
  // A CRL with one entry, so the rows pay for the revocation lookup as a deployment would.
  const crl = hasOpenssl() ? ca.crl(join(dir, 'crl.pem'), [ca.issue({ cn: 'revoked', uris: ['urn:svc:client:cert-mail'] })]) : undefined;
  // One secure context for every connection of the load generator: parsing the key and certificates
  // anew for each handshake would charge the generator, on the same two cores, for work no client repeats.
  const client = { secureContext: createSecureContext({ cert: bob.certPem, key: bob.keyPem, ca: serverCa.certPem }) };
  const anonymous = { secureContext: createSecureContext({ ca: serverCa.certPem }) };
  return { tls: { cert: server.certPath, key: server.keyPath, clientCA: ca.certPath, ...(crl ? { crl } : {}) }, client, anonymous, crl: crl !== undefined };
}

/** A session cookie from one login on a fresh TLS connection (as `Cookie: NAME=value`). */
async function sessionCookie(core: CoreUnderTest, base: Omit<RawLoopOptions, 'duration' | 'warmup' | 'connections'>): Promise<string> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const url = new URL(base.origin + base.path);
    const body = base.nextBody ? base.nextBody() : (base.body ?? '');
    const req = request(url, { method: 'POST', headers: { ...base.headers, 'Content-Length': String(Buffer.byteLength(body)) }, agent: false, ...base.tls }, (res) => {
      res.resume();
      const line = (res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${core.cookieName}=`));
      if (res.statusCode !== 200 || !line) return reject(new Error(`login answered ${res.statusCode}`));
      resolve(line.split(';')[0]);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One row on a fresh core: logins make sessions, and each row starts from an empty session store. */
async function loginRow(ctx: ScenarioContext, tls: Record<string, string>, name: string, load: Omit<RawLoopOptions, 'origin' | 'duration' | 'warmup' | 'connections'>, reference?: Row): Promise<Row> {
  return withCore({ tls }, async (core) => {
    const m = await rawLoop({ ...load, origin: core.url, connections: ctx.connections, duration: ctx.duration, warmup: ctx.warmup });
    return loadRow(name, m, { reference });
  });
}

/**
 * Client certificates (SPEC 13) beside the closest clientcred login: a client principal (level 1,
 * no password hash: a sealed clientcred and user opened with AES-GCM, a nonce kept). Certificate
 * logins over kept-alive TLS (the certificate re-verified on every login: chain signature, CRL,
 * SAN) and with a full TLS handshake each; then the check with each kind of session.
 */
export const certificate: Scenario = {
  name: 'certificate',
  run: async (ctx) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-pki-'));
    try {
      const pki = makePki(dir);
      const path = '/svc/login';
      const form = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
      const sealer = new ClientSealer(BENCH_GATEWAY_CLIENT, BENCH_CREDENTIALS.clients[BENCH_GATEWAY_CLIENT]);
      const sealed = () => {
        const { clientcred, nonce } = sealer.sealClientCred();
        return new URLSearchParams({ clientid: BENCH_GATEWAY_CLIENT, clientcred, user: sealer.sealParam('user', 'employees/bob', nonce) }).toString();
      };
      const clientcredLoad = { path, method: 'POST' as const, headers: form, nextBody: sealed, tls: pki.anonymous, expectStatus: 200 };
      const certLoad = { path, method: 'POST' as const, headers: form, body: '', tls: pki.client, expectStatus: 200 };
      const note = pki.crl ? 'CRL of one entry' : 'no CRL (openssl missing)';
      const rows: Row[] = [];
      const clientcred = await loginRow(ctx, pki.tls, CLIENTCRED_LOGIN, clientcredLoad);
      rows.push(clientcred);
      rows.push({ ...(await loginRow(ctx, pki.tls, 'login with a client certificate (TLS keep-alive)', certLoad, clientcred)), note });
      rows.push({ ...(await loginRow(ctx, pki.tls, 'login with a client certificate (a full TLS handshake each)', { ...certLoad, connectionPerRequest: true }, clientcred)), note });
      rows.push(
        ...(await withCore({ tls: pki.tls }, async (core) => {
          const check = async (name: string, cookie: string, reference?: Row) => {
            // core.settle() polls /health with fetch, which does not trust the run's CA: a pause instead.
            await new Promise((resolve) => setTimeout(resolve, 1000));
            const m = await rawLoop({
              origin: core.url,
              path: '/svc/resources/contexts/employees/subjects/bob',
              method: 'HEAD',
              headers: { Cookie: cookie, 'X-Operation': 'READ' },
              tls: pki.anonymous,
              connections: ctx.connections,
              duration: ctx.duration,
              warmup: ctx.warmup,
              expectStatus: 200,
            });
            return loadRow(name, m, { reference });
          };
          const withClientcred = await check(CLIENTCRED_CHECK, await sessionCookie(core, { ...clientcredLoad, origin: core.url }));
          const withCertificate = await check('check HEAD + X-Operation READ, certificate session (TLS)', await sessionCookie(core, { ...certLoad, origin: core.url }), withClientcred);
          return [withClientcred, withCertificate];
        })),
      );
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

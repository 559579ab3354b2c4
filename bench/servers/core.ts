/**
 * The core server under test, as its own process: the demo-shaped configuration with known
 * credentials, on 127.0.0.1 port 0, in a temporary data directory, with the production password
 * parameters and request logging at `info` to a file (as a deployment would log).
 *
 *   node dist/bench/servers/core.js [--subjects N] [--store sqlite|postgres|ldap] [--log info|silent] [--tls JSON]
 *
 * `--tls '{"cert","key","clientCA","crl"}'` serves HTTPS with client certificates and adds the
 * certificate clients of bench/lib/pki.ts (cert-app, cert-mail, cert-cn).
 *
 * `--store postgres` puts both contexts in PostgreSQL (SVC_BENCH_PG_URL, default the local `test`
 * database), in a schema of its own that is dropped when the process stops. `--store ldap` puts
 * them in a throwaway OpenLDAP of its own (test/ldap/slapd.sh), stopped with the process.
 *
 * Seeds alice (admin) and bob (user) like the demo, then N more subjects `user000000`… straight
 * through the store's importSubjects with one precomputed password hash. Gets a USER session for
 * bob and alice by POST {base}/login (clientid svc-web) when that route answers, else by
 * core.sessions.create inside this process, and prints one JSON line (`CoreReady`) on stdout.
 *
 * Run with --expose-gc, it answers each SIGUSR2 with one more line, `MemoryReport`: the process's
 * memory after full garbage collections (the flood test compares it before and after a flood).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchSchema } from '../lib/postgres';
import pino from 'pino';
import { buildConfig } from '../../server/src/config/load';
import { demoConfigDocument } from '../../server/src/demo/demo-config';
import { seedDemo } from '../../server/src/demo/demo';
import { createLogger, logDestination } from '../../common/src/log';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { startServer, type RunningServer } from '../../server/src/server';
import type { Attributes } from '../../server/src/subjects/subject';
import type { ImportedSubject, SubjectWrite } from '../../server/src/subjects/store';
import { onStop, report } from '../lib/child';
import { reportMemoryOnSignal } from '../lib/memory-signal';
import { addCertificateClients } from '../lib/pki';
import { BENCH_CLIENT, BENCH_CREDENTIALS, seededId, type CoreReady } from './core-shared';

const GIVEN = ['Ada', 'Ben', 'Cleo', 'Dan', 'Eva', 'Finn', 'Gia', 'Hugo', 'Ines', 'Jon'];
const FAMILY = ['Berg', 'Dahl', 'Eriksen', 'Holm', 'Lund', 'Moe', 'Nilsen', 'Strand', 'Vik', 'Aas'];

async function seedSubjects(running: RunningServer, count: number, passwordHash: string): Promise<void> {
  const { config, store } = running.core.subjects.context('employees');
  // The service's own mapping from attributes to keys and search values, so the rows are exactly what CREATE writes.
  const toWrite = (id: string, attributes: Attributes): SubjectWrite => running.core.subjects.toWrite(config, id, attributes);
  const at = new Date().toISOString();
  const batch = 10_000;
  for (let start = 0; start < count; start += batch) {
    const subjects: ImportedSubject[] = [];
    for (let i = start; i < Math.min(count, start + batch); i++) {
      const id = seededId(i);
      const write = toWrite(id, {
        mail: `${id}@example.com`,
        givenName: GIVEN[i % GIVEN.length],
        familyName: FAMILY[Math.floor(i / GIVEN.length) % FAMILY.length],
        roles: ['user'],
        password: passwordHash,
      });
      subjects.push({ write, created: at, modified: at });
    }
    await store.importSubjects('employees', subjects, { replace: false });
  }
}

/** A throwaway slapd (test/ldap/slapd.sh, from the repository beside dist/) and `stores.ldap` on it. */
function startDirectory(): { settings: Record<string, unknown>; stop: () => void } {
  const script = join(__dirname, '..', '..', '..', 'test', 'ldap', 'slapd.sh');
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-slapd-'));
  const started = spawnSync(script, ['start', dir], { encoding: 'utf8' });
  if (started.status !== 0) throw new Error(`test/ldap/slapd.sh failed: ${started.stderr}`);
  const env = Object.fromEntries(started.stdout.trim().split('\n').map((line) => line.split(/=(.*)/s).slice(0, 2)));
  return {
    settings: { url: env.SVC_LDAP_URL, bindDN: env.SVC_LDAP_BIND_DN, bindPassword: env.SVC_LDAP_BIND_PASSWORD, baseDN: env.SVC_LDAP_BASE_DN, objectClasses: ['account', 'svcSubject'], poolSize: 8 },
    stop: () => void spawnSync(script, ['stop', dir]),
  };
}

async function userSession(running: RunningServer, user: 'alice' | 'bob'): Promise<{ cookie: string; via: CoreReady['sessionVia'] }> {
  const cookieName = running.core.config.settings.sessionCookie.name;
  // Over HTTPS (--tls) fetch does not trust the run's own CA: the session is then made in-process.
  const response = await fetch(`${running.baseUrl}/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams({ user, password: BENCH_CREDENTIALS.users[user], clientid: BENCH_CLIENT }).toString(),
    redirect: 'manual',
  }).catch(() => undefined);
  await response?.arrayBuffer();
  if (response?.status === 200) {
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const eq = pair.indexOf('=');
      if (pair.slice(0, eq).trim() === cookieName && pair.slice(eq + 1)) return { cookie: pair.slice(eq + 1), via: 'login' };
    }
  }
  // Login is not there yet (or refused): make the same USER session inside the server process.
  const { cookieValue } = await running.core.sessions.create({
    type: 'USER',
    clientId: BENCH_CLIENT,
    principal: { uniqueId: user, contextId: 'employees' },
    level: 2,
    authenticator: 'employees-password',
  });
  return { cookie: cookieValue, via: 'sessions.create' };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { subjects: { type: 'string', default: '0' }, store: { type: 'string', default: 'sqlite' }, log: { type: 'string', default: 'info' }, tls: { type: 'string' } },
  });
  const count = Number(values.subjects);
  if (values.store !== 'sqlite' && values.store !== 'postgres' && values.store !== 'ldap') throw new Error(`--store sqlite, postgres or ldap, not ${values.store}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const setupHasher = new PasswordHasher({ precomputeDummy: false });
  const systemPasswordHash = await setupHasher.hash(BENCH_CREDENTIALS.users.svcadmin);
  const document = demoConfigDocument({ credentials: BENCH_CREDENTIALS, systemPasswordHash, dataDir, host: '127.0.0.1', port: 0 });
  const postgres = values.store === 'postgres' ? await benchSchema() : undefined;
  if (postgres) {
    for (const context of document.contexts as Array<Record<string, unknown>>) context.store = 'postgres';
    document.stores = { postgres: { url: postgres.url } };
  }
  const directory = values.store === 'ldap' ? startDirectory() : undefined;
  if (directory) {
    for (const context of document.contexts as Array<Record<string, unknown>>) context.store = 'ldap';
    document.stores = { ldap: directory.settings };
  }
  if (values.tls) addCertificateClients(document, JSON.parse(values.tls) as Record<string, unknown>);
  // BENCH_LOG_REQUESTS=all|errors|none: the core's log.requests, to measure what request lines cost.
  if (process.env.BENCH_LOG_REQUESTS) document.log = { requests: process.env.BENCH_LOG_REQUESTS };
  const config = buildConfig(document, {});
  const logger =
    values.log === 'silent' ? pino({ level: 'silent' }) : createLogger({ level: values.log, destination: logDestination(join(dataDir, 'svc.log')) });
  const running = await startServer(config, { logger });
  onStop(async () => {
    await running.close();
    await postgres?.drop();
    directory?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  await seedDemo(running.core, BENCH_CREDENTIALS);
  const seedStarted = process.hrtime.bigint();
  if (count > 0) await seedSubjects(running, count, await setupHasher.hash('Seeded-pass-1234'));
  const seedSeconds = Number(process.hrtime.bigint() - seedStarted) / 1e9;
  const bob = await userSession(running, 'bob');
  const alice = await userSession(running, 'alice');
  const ready: CoreReady = {
    url: running.url,
    base: running.baseUrl,
    cookieName: running.core.config.settings.sessionCookie.name,
    cookies: { bob: bob.cookie, alice: alice.cookie },
    sessionVia: bob.via,
    subjects: count,
    seedSeconds,
  };
  report(ready);
  reportMemoryOnSignal();
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

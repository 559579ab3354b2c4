/**
 * The real `svc server` command on PostgreSQL and Redis (issue 15, "Workers"), for the workers
 * scenario: a schema of its own in the bench's PostgreSQL (SVC_BENCH_PG_URL, default the local `test`
 * database) and a key prefix of its own in its Redis (SVC_BENCH_REDIS_URL, default the local one),
 * seeded like the demo by a core in this process, then served by `svc server --config FILE` with
 * `--workers N` (or without it: one process, the baseline). The command logs at `info` to a file (as
 * a deployment would log), so that no process between it and the disk reads its lines.
 *
 *   node dist/bench/servers/core-workers.js [--workers N]
 *   BENCH_PROFILE=DIR  profiles the svc command's processes too (--cpu-prof)
 *
 * Prints one JSON line (`WorkersReady`) on stdout; on SIGINT/SIGTERM stops the command (SIGTERM: the
 * primary stops its workers) and removes the schema, the keys and the data directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { benchSchema } from '../lib/postgres';
import pino from 'pino';
import { buildConfig } from '../../server/src/config/load';
import { demoConfigDocument } from '../../server/src/demo/demo-config';
import { seedDemo } from '../../server/src/demo/demo';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { startServer } from '../../server/src/server';
import { onStop, report } from '../lib/child';
import { BENCH_REDIS_URL, deleteRedisKeys } from '../lib/redis';
import { BENCH_CLIENT, BENCH_CREDENTIALS, type WorkersReady } from './core-shared';

/** dist/bench/servers → dist/bin/svc.js */
const SVC = resolve(__dirname, '../../bin/svc.js');
/** The log file's entries so far (the command writes whole lines; the last may still be missing). */
function entries(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Waits for the entry `found` picks (the command exiting first is an error). */
async function waitFor<T>(file: string, command: ChildProcess, found: (entry: Record<string, unknown>) => T | undefined): Promise<T> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (command.exitCode !== null) throw new Error(`svc server exited with ${command.exitCode}: ${readFileSync(file, 'utf8').slice(-2000)}`);
    for (const entry of entries(file)) {
      const value = found(entry);
      if (value !== undefined) return value;
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error('svc server did not start within 60 s');
}

async function login(base: string, cookieName: string): Promise<string> {
  const response = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams({ user: 'bob', password: BENCH_CREDENTIALS.users.bob, clientid: BENCH_CLIENT }).toString(),
  });
  await response.arrayBuffer();
  for (const header of response.headers.getSetCookie()) {
    const [pair] = header.split(';');
    const eq = pair.indexOf('=');
    if (pair.slice(0, eq).trim() === cookieName && pair.slice(eq + 1)) return pair.slice(eq + 1);
  }
  throw new Error(`bob's login answered ${response.status} without a session cookie`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { workers: { type: 'string' } } });
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-workers-'));
  const prefix = `svc-bench:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const schema = await benchSchema('bench_workers');
  const started: { command?: ChildProcess } = {};
  onStop(async () => {
    const { command } = started;
    if (command && command.exitCode === null) {
      const exited = new Promise((done) => command.once('exit', done));
      command.kill('SIGTERM');
      await exited;
    }
    await schema.drop();
    await deleteRedisKeys(prefix);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const systemPasswordHash = await new PasswordHasher({ precomputeDummy: false }).hash(BENCH_CREDENTIALS.users.svcadmin);
  const document = demoConfigDocument({ credentials: BENCH_CREDENTIALS, systemPasswordHash, dataDir, host: '127.0.0.1', port: 0 });
  for (const context of document.contexts as Array<Record<string, unknown>>) context.store = 'postgres';
  document.stores = { postgres: { url: schema.url } };
  document.sessions = { store: 'redis', redis: { url: BENCH_REDIS_URL, prefix } };
  const configFile = join(dataDir, 'svc.json');
  writeFileSync(configFile, JSON.stringify(document));

  const seeder = await startServer(buildConfig(document, {}), { logger: pino({ level: 'silent' }) });
  await seedDemo(seeder.core, BENCH_CREDENTIALS);
  await seeder.close();

  const logFile = join(dataDir, 'svc.log');
  const out = openSync(logFile, 'a');
  const workers = values.workers === undefined ? [] : ['--workers', values.workers];
  // BENCH_PROFILE=DIR: a CPU profile of the primary and of every worker (workers inherit its node flags).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const command = spawn(process.execPath, [...profile, SVC, 'server', '--config', configFile, '--port', '0', ...workers], { stdio: ['ignore', out, 'inherit'] });
  started.command = command;
  closeSync(out);
  const ready = values.workers === undefined
    ? await waitFor(logFile, command, (e) => (e.msg === 'core server listening' ? { base: `${e.url as string}/svc`, pids: [e.pid as number] } : undefined))
    : await waitFor(logFile, command, (e) => (e.msg === 'workers ready' ? { base: e.base as string, pids: e.pids as number[] } : undefined));
  const cookieName = document.global && typeof document.global === 'object' ? ((document.global as Record<string, unknown>)['http.session.cookie.uniqueid'] as string | undefined) : undefined;
  const name = cookieName ?? 'SVCSESSIONID';
  const result: WorkersReady = {
    url: new URL(ready.base).origin,
    base: ready.base,
    cookieName: name,
    bobCookie: await login(ready.base, name),
    primaryPid: command.pid!,
    workerPids: ready.pids,
  };
  report(result);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

/**
 * PostgreSQL outages (issue 16): a real `svc server` child process keeps its subjects in a schema of
 * this suite, reached through a fault-injecting proxy in front of the shared PostgreSQL (which is
 * never stopped: other suites use it), while clients log in, check, read and write back to back.
 * PostgreSQL is cut off (connections closed mid-conversation, new ones refused) and stalled (it
 * accepts and says nothing). Throughout, every answer is 200 or a clean 503 problem; the core never
 * crashes (an error on a connection a transaction holds, a ROLLBACK on a silent one), says so on
 * `/ready`, and serves again once PostgreSQL is back, without a restart.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededConfigDocument } from '../helpers/core-server';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';
import { onPostgres, suiteSchemas, urlWithSchema } from '../helpers/postgres';
import { describeWithService, PG_URL, postgresRequirement } from '../helpers/services';
import { startCoreProcess, stopSvc, type Running } from '../helpers/svc-process';
import { outageAndRecovery, readyBecomes, startOutageLoad, type OutageLoad } from './outage-load';

/** Short, so that the stall phase needs no long wait (the defaults are 5000 ms). */
const TIMEOUTS = { statementTimeoutMs: 1000, connectTimeoutMs: 1000 };

describeWithService(postgresRequirement(), 'a core whose PostgreSQL goes away under load', () => {
  const schemas = suiteSchemas('pg_outage');
  let dir: string;
  let configFile: string;
  let proxy: FaultProxy;
  let core: Running & { ready: string };
  let load: OutageLoad | undefined;

  const base = () => `${core.ready}/svc`;
  const alive = () => core.child.exitCode === null && core.child.signalCode === null;

  const readyIs = (up: boolean) => readyBecomes(core.ready, 'postgres', up);
  const cut = { takeAway: () => proxy.cut(), bringBack: () => proxy.restore() };
  const stall = { takeAway: () => proxy.stall(), bringBack: () => proxy.restore() };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-pg-outage-'));
    const { schema, url } = await schemas.create();
    proxy = await startFaultProxy(Number(new URL(PG_URL).port || 5432), new URL(PG_URL).hostname);
    // Seeded straight on PostgreSQL; the core under test reaches it through the proxy.
    const doc = await seededConfigDocument(dir, onPostgres(url));
    const proxied = new URL(PG_URL);
    proxied.port = String(proxy.port);
    onPostgres(urlWithSchema(schema, proxied.toString()), TIMEOUTS)(doc);
    configFile = join(dir, 'core.json');
    writeFileSync(configFile, JSON.stringify(doc));
    core = await startCoreProcess(configFile);
    // A crash is the finding: its last words go to the test's output.
    let stderr = '';
    core.child.stderr?.on('data', (chunk) => (stderr += String(chunk)));
    core.child.once('exit', (code, signal) => console.error(`the core exited (${code ?? signal}): ${core.log.slice(-3).join('\n')}\n${stderr.slice(-2000)}`));
  }, 60_000);

  afterAll(async () => {
    await load?.stop();
    if (core && alive()) await stopSvc(core);
    await proxy?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('cut and stalled: 200 or 503 problems; /ready false; no crash; recovery without a restart', async () => {
    const started = startOutageLoad(base());
    load = started;
    started.phase('before');
    await started.until('ok', 30);

    await outageAndRecovery(started, { during: 'cut', after: 'after cut' }, cut, readyIs);
    await outageAndRecovery(started, { during: 'stalled', after: 'after stall' }, stall, readyIs);

    // Cut while stalled: the connections the stall held (transactions among them) break at once.
    started.phase('stalled, then cut');
    proxy.stall();
    await started.until('unavailable', 5);
    proxy.cut();
    await started.until('unavailable', 10);
    proxy.restore();
    started.phase('after both');
    await readyIs(true);
    await started.until('ok', 30);

    await started.stop();
    load = undefined;
    expect(started.anomalies).toEqual([]);
    expect(alive()).toBe(true);
    const phases = ['before', 'cut', 'after cut', 'stalled', 'after stall', 'stalled, then cut', 'after both'];
    console.log(`PostgreSQL outages under load: ${phases.map((p) => `${p} ${JSON.stringify(started.tally(p))}`).join('; ')}`);
  }, 240_000);
});

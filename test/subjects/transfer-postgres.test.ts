/**
 * Moving the demo to PostgreSQL with the real `svc` command (SPEC section 12): the demo seeds its
 * SQLite store; `svc export` writes it; `svc import` into PostgreSQL is refused until `svc migrate`
 * (migrate "refuse"); exporting from PostgreSQL and importing into a fresh SQLite file give the same
 * bytes at every step; and a core on PostgreSQL lets every user log in with the same password.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DemoCredentials } from '../../server/src/demo/demo-config';
import { demoConfigDocument } from '../../server/src/demo/demo-config';
import { LATEST_VERSION } from '../../server/src/subjects/postgres-migrations';
import { login } from '../helpers/login';
import { onPostgres, suiteSchemas } from '../helpers/postgres';
import { describeWithService, postgresRequirement } from '../helpers/services';
import { runSvc, startCoreProcess, startDemo, stopSvc } from '../helpers/svc-process';

const postgres = postgresRequirement();

describeWithService(postgres, 'svc export / migrate / import: SQLite → PostgreSQL → SQLite', () => {
  const schemas = suiteSchemas('transfer');
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-move-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  let credentials: DemoCredentials;
  let fromDemo: string;
  let onPg: string;
  let fromPostgres: string;

  /** A configuration file of the demo's shape (its credentials), on PostgreSQL or on SQLite in a new directory. */
  const configFile = (change: (doc: Record<string, unknown>) => void) => {
    const dataDir = tempDir();
    const doc = demoConfigDocument({ credentials, systemPasswordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA', dataDir, host: '127.0.0.1', port: 0 });
    change(doc);
    const file = join(dataDir, 'svc.json');
    writeFileSync(file, JSON.stringify(doc));
    return file;
  };

  beforeAll(async () => {
    const demoDir = tempDir();
    const demo = await startDemo(demoDir);
    expect(await stopSvc(demo)).toBe(0);
    credentials = JSON.parse(readFileSync(join(demoDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
    // The demo's own data directory needs no configuration file.
    const exported = await runSvc(['export', '--context', 'employees'], { env: { SVC_DATA_DIR: demoDir } });
    expect(exported).toMatchObject({ code: 0, stderr: '' });
    fromDemo = exported.stdout;
    onPg = configFile(onPostgres((await schemas.create()).url, { migrate: 'refuse' }));
  }, 60_000);

  test('the demo exports its subjects with their hashes', () => {
    const lines = fromDemo.trimEnd().split('\n').map((line) => JSON.parse(line));
    // The demo's SCIM service subject (SPEC 14) travels like any other: no password, role provisioner.
    expect(lines.map((line) => line.uniqueId)).toEqual(['alice', 'bob', 'scim-employees']);
    expect(lines[1].attributes.password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(lines[1].attributes.passwordAnswers).toHaveLength(2);
  });

  test('an import into a schema behind with migrate "refuse" is refused until svc migrate', async () => {
    const refused = await runSvc(['import', '--config', onPg, '--context', 'employees'], { stdin: fromDemo });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/schema is at version 0 .*run "svc migrate --config FILE" first/);
    expect(await runSvc(['migrate', '--config', onPg])).toEqual({ code: 0, stdout: `PostgreSQL schema migrated to version ${LATEST_VERSION} (applied ${Array.from({ length: LATEST_VERSION }, (_, i) => i + 1).join(', ')})\n`, stderr: '' });
    expect(await runSvc(['migrate', '--config', onPg])).toEqual({ code: 0, stdout: `PostgreSQL schema already at version ${LATEST_VERSION}\n`, stderr: '' });
  });

  test('SQLite → PostgreSQL → SQLite: the same bytes at every step', async () => {
    expect(await runSvc(['import', '--config', onPg, '--context', 'employees'], { stdin: fromDemo })).toMatchObject({ code: 0 });
    const exported = await runSvc(['export', '--config', onPg, '--context', 'employees']);
    expect(exported.code).toBe(0);
    fromPostgres = exported.stdout;
    expect(fromPostgres).toBe(fromDemo);
    const backOnSqlite = configFile(() => undefined);
    expect(await runSvc(['import', '--config', backOnSqlite, '--context', 'employees'], { stdin: fromPostgres })).toMatchObject({ code: 0 });
    expect((await runSvc(['export', '--config', backOnSqlite, '--context', 'employees'])).stdout).toBe(fromDemo);
  });

  test('a core on PostgreSQL, as its own process: the demo users log in with the demo passwords', async () => {
    expect(fromPostgres).toBe(fromDemo);
    const core = await startCoreProcess(onPg);
    try {
      const base = `${core.ready}/svc`;
      for (const user of ['alice', 'bob'] as const) {
        expect((await login(base, { clientid: 'svc-web', user, password: credentials.users[user] })).status).toBe(200);
      }
      expect((await login(base, { clientid: 'svc-web', user: 'bob@example.com', password: credentials.users.bob })).status).toBe(200);
      expect((await login(base, { clientid: 'svc-web', user: 'bob', password: credentials.users.alice })).status).toBe(401);
    } finally {
      expect(await stopSvc(core)).toBe(0);
    }
  });
});

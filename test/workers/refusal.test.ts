/**
 * `--workers N` is refused at start unless every store the process uses is shared (SPEC section 12,
 * "Workers"): the real `svc` command exits 1 before opening anything, and its message names each
 * unshared store, the setting that chose it and the fix. The decoy key that workers would race to
 * create is made atomically: many processes at once all read the one key.
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { onPostgres } from '../helpers/postgres';
import { runSvc } from '../helpers/svc-process';
import { coreConfigFile, gatewayConfigFile, suiteDirs } from './helpers';

// Each case runs the real command, several times on a busy 2-core machine.
jest.setTimeout(120_000);

const SESSIONS_ON_MEMORY = [
  '  - sessions and clientcred nonces: sessions.store is "memory", one per process; use "redis"',
  '  - lockout counters: sessions.store is "memory", one per process; use "redis"',
  '  - registration throttle, flow starts and wrong-answer counters: sessions.store is "memory", one per process; use "redis"',
  '  - forgotten-password reset markers: sessions.store is "memory", one per process; use "redis"',
  '  - the key of stateless cookies (ANON sessions, flow state): sessions.store is "memory", one per process; use "redis"',
];

describe('svc server --workers N on stores that are not shared', () => {
  const tempDir = suiteDirs();

  test('SQLite subjects and memory sessions: refused, every unshared store named with its fix', async () => {
    const config = await coreConfigFile(tempDir());
    const refused = await runSvc(['server', '--config', config, '--port', '0', '--workers', '2']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).not.toMatch(/listening/);
    expect(refused.stderr).toBe(
      [
        'svc: svc server --workers 2 refused: every store must be shared between workers, and these are not:',
        '  - subjects of context "employees": contexts[0].store is "sqlite", one per process; use "postgres" or "ldap"',
        '  - subjects of context "customers": contexts[1].store is "sqlite", one per process; use "postgres" or "ldap"',
        ...SESSIONS_ON_MEMORY,
      ].join('\n') + '\n',
    );
  });

  test('subjects on PostgreSQL but sessions in memory: refused for the sessions alone (before connecting to anything)', async () => {
    // A PostgreSQL that does not exist: the refusal comes before any store is opened.
    const config = await coreConfigFile(tempDir(), onPostgres('postgres://nobody@127.0.0.1:1/none'));
    const refused = await runSvc(['server', '--config', config, '--port', '0', '--workers', '3']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(['svc: svc server --workers 3 refused: every store must be shared between workers, and these are not:', ...SESSIONS_ON_MEMORY].join('\n') + '\n');
  });

  test('without --config (the embedded demo), and with a count that is not a whole number from 1', async () => {
    const demo = await runSvc(['server', '--workers', '2'], { env: { SVC_CONFIG: '', SVC_DATA_DIR: tempDir() } });
    // Mistakes in the command line: exit 2, the usage after the mistake.
    expect(demo).toMatchObject({ code: 2, stderr: expect.stringMatching(/^svc: svc server --workers needs --config FILE.*\n\nusage: svc server /) });
    const config = await coreConfigFile(tempDir());
    for (const bad of ['0', '257', '1.5', 'two']) {
      expect(await runSvc(['server', '--config', config, '--workers', bad])).toMatchObject({ code: 2, stderr: expect.stringMatching(new RegExp(`^svc: --workers must be a whole number from 1 to 256, not "${bad}"\n\nusage: svc server `)) });
    }
  });
});

describe('svc server --workers N whose workers cannot start', () => {
  const tempDir = suiteDirs();

  test('shared stores that are unreachable: the workers fail to open them, and the command exits 1 with their error, not retrying forever', async () => {
    const config = await coreConfigFile(tempDir(), (doc) => {
      onPostgres('postgres://nobody@127.0.0.1:1/none', { connectTimeoutMs: 500 })(doc);
      doc.sessions = { store: 'redis', redis: { url: 'redis://127.0.0.1:1' } };
    });
    const failed = await runSvc(['server', '--config', config, '--port', '0', '--workers', '2']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/a worker exited \(code 1\) before every worker listened; its error is above/);
    expect(failed.stderr).toMatch(/127\.0\.0\.1:1/);
    expect(failed.stdout).not.toMatch(/workers ready/);
  });
});

describe('svc gateway --workers N without gateway.redis', () => {
  const tempDir = suiteDirs();

  test('refused, naming the replay cache and the held core sessions', async () => {
    const config = gatewayConfigFile(tempDir(), ['http://127.0.0.1:1/svc']);
    const refused = await runSvc(['gateway', '--config', config, '--port', '0', '--workers', '2']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      [
        'svc: svc gateway --workers 2 refused: every store must be shared between workers, and these are not:',
        '  - assertion replay cache: gateway.redis is absent, one per process; configure gateway.redis',
        '  - core sessions held for portal principals: gateway.redis is absent, one per process; configure gateway.redis',
      ].join('\n') + '\n',
    );
  });
});

describe('the decoy questions key, made by processes starting at once', () => {
  const tempDir = suiteDirs();

  test('eight processes on one new data directory all read the same 32-byte key, and leave no temporary file', async () => {
    const dataDir = join(tempDir(), 'data');
    const module = resolve(__dirname, '../../dist/server/src/flows/decoy-questions.js');
    const script = `process.stdout.write(require(${JSON.stringify(module)}).readOrCreateKey(process.argv[1]).toString('hex'))`;
    const keys = await Promise.all(
      Array.from(
        { length: 8 },
        () =>
          new Promise<string>((done, fail) => {
            const child = spawn(process.execPath, ['-e', script, join(dataDir, 'decoy.key')], { stdio: ['ignore', 'pipe', 'inherit'] });
            let out = '';
            child.stdout.on('data', (chunk) => (out += String(chunk)));
            child.once('error', fail);
            child.once('close', (code) => (code === 0 ? done(out) : fail(new Error(`exit ${code}`))));
          }),
      ),
    );
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toBe(readFileSync(join(dataDir, 'decoy.key')).toString('hex'));
    expect(keys[0]).toHaveLength(64);
    expect(readdirSync(dataDir)).toEqual(['decoy.key']);
  });
});

/**
 * svc export and svc import (SPEC section 12, "Moving data") on SQLite files: canonical JSON lines
 * with every hash, a lossless round trip, all-or-nothing imports with the faulty lines named, and a
 * progress bar only on a terminal. The PostgreSQL round trip is in transfer-postgres.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoConfigOfEnvironment } from '../../server/src/demo/demo';
import { runExport, runImport } from '../../server/src/subjects/transfer-command';
import { startTestServer, testConfigDocument, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { login } from '../helpers/login';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { TEST_HASH } from '../helpers/core-server';
import { runTransfer, type Ran } from '../helpers/transfer';

/** Runs a command in this process with collected output; `tty` makes stderr claim to be a terminal. */
const run = (command: typeof runExport, argv: string[], options: { stdin?: string; tty?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<Ran> =>
  runTransfer(command, argv, { ...options, defaultConfig: demoConfigOfEnvironment });

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-transfer-'));
  dirs.push(dir);
  return dir;
};
const hasher = new PasswordHasher({ ...TEST_HASH, precomputeDummy: false });

/** A configuration file of the demo shape over a data directory of its own (SQLite). */
async function configFile(change: (doc: Record<string, unknown>) => void = () => undefined): Promise<{ file: string; dataDir: string }> {
  const dataDir = tempDir();
  const doc = await testConfigDocument(dataDir, hasher);
  change(doc);
  const file = join(dataDir, 'svc.json');
  writeFileSync(file, JSON.stringify(doc));
  return { file, dataDir };
}

let source: { file: string; dataDir: string };
let exported: string;

beforeAll(async () => {
  // A seeded demo-shaped store with more than the seed: a customer and an employee with every kind of attribute.
  source = await configFile();
  const server: TestServer = await startTestServer({ dataDir: source.dataDir });
  await server.core.subjects.create('employees', 'Zed.Z', { mail: 'zed@example.com', givenName: 'Zoë', roles: ['user', 'auditor'], disabled: 'true' }, 'admin');
  await server.core.subjects.create('customers', 'cust1', { mail: 'c1@example.com', password: 'Customer-pass-1' }, 'admin');
  await server.stop({ keepData: true });
  exported = (await run(runExport, ['--config', source.file, '--context', 'employees'])).stdout;
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('svc export', () => {
  test('writes one canonical line per subject, ordered by uniqueId, hashes included', () => {
    const lines = exported.trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line).uniqueId)).toEqual(['Zed.Z', 'alice', 'bob']);
    const bob = JSON.parse(lines[2]);
    expect(Object.keys(bob)).toEqual(['uniqueId', 'attributes', 'created', 'modified']);
    expect(Object.keys(bob.attributes)).toEqual([...Object.keys(bob.attributes)].sort());
    expect(bob.attributes).toMatchObject({ mail: 'bob@example.com', roles: ['user'], passwordQuestions: ['What was the name of your first pet?', 'In which city were you born?'] });
    expect(bob.attributes.password).toMatch(/^\$argon2id\$/);
    expect(bob.attributes.passwordAnswers).toHaveLength(2);
    expect(bob.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(exported).not.toContain(TEST_CREDENTIALS.users.bob);
  });

  test('exports another context, and an empty one as nothing', async () => {
    const customers = await run(runExport, ['--config', source.file, '--context', 'customers']);
    expect(customers.code).toBe(0);
    expect(customers.stdout.trimEnd().split('\n').map((line) => JSON.parse(line).uniqueId)).toEqual(['cust1']);
    const empty = await configFile();
    expect(await run(runExport, ['--config', empty.file, '--context', 'customers'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  test('refuses bad usage with the usage text, and a SQLite file another process holds', async () => {
    expect((await run(runExport, ['--config', source.file])).code).toBe(2);
    const unknown = await run(runExport, ['--config', source.file, '--context', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown context "nope"; the configuration has employees, customers');
    const memory = await configFile((doc) => ((doc.contexts as Array<Record<string, unknown>>)[1].store = 'memory'));
    expect((await run(runExport, ['--config', memory.file, '--context', 'customers'])).stderr).toContain('memory store');
    const held = await startTestServer({ dataDir: (await configFile()).dataDir });
    try {
      const busy = await run(runExport, ['--config', join(held.dataDir, 'svc.json'), '--context', 'employees']);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(/in use by another process/);
    } finally {
      await held.stop();
    }
  });

  test('without --config, the demo data directory of SVC_DATA_DIR; one without a demo is refused', async () => {
    const none = await run(runExport, ['--context', 'employees'], { env: { SVC_DATA_DIR: tempDir() } });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/holds no demo .*give --config FILE/);
  });
});

describe('svc import', () => {
  test('round trip: import into another store, export again, the same bytes; users keep their passwords', async () => {
    const target = await configFile();
    const imported = await run(runImport, ['--config', target.file, '--context', 'employees'], { stdin: exported });
    expect(imported).toMatchObject({ code: 0, stdout: '' });
    expect(imported.stderr).toBe('svc import: 3 subjects written to employees\n');
    expect((await run(runExport, ['--config', target.file, '--context', 'employees'])).stdout).toBe(exported);
    const server = await startTestServer({ dataDir: target.dataDir, seed: false });
    try {
      for (const user of ['bob', 'alice'] as const) {
        expect((await login(server.baseUrl, { clientid: 'svc-web', user, password: TEST_CREDENTIALS.users[user] })).status).toBe(200);
      }
      expect((await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: TEST_CREDENTIALS.users.alice })).status).toBe(401);
    } finally {
      await server.stop({ keepData: true });
    }
  });

  test('an existing uniqueId refuses the whole import unless --replace', async () => {
    const target = await configFile();
    const file = join(target.dataDir, 'in.jsonl');
    writeFileSync(file, exported);
    expect((await run(runImport, ['--config', target.file, '--context', 'employees', file])).code).toBe(0);
    const again = await run(runImport, ['--config', target.file, '--context', 'employees', file]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('import refused, nothing written:\n  line 1: subject Zed.Z exists (--replace replaces it)');
    const replaced = await run(runImport, ['--config', target.file, '--context', 'employees', '--replace', file]);
    expect(replaced.code).toBe(0);
    expect((await run(runExport, ['--config', target.file, '--context', 'employees'])).stdout).toBe(exported);
  });

  test('invalid lines refuse the whole import, each named by its line number, and nothing is written', async () => {
    const target = await configFile();
    const [zed, alice, bob] = exported.trimEnd().split('\n').map((line) => JSON.parse(line));
    const lines = [
      JSON.stringify(zed),
      '{"uniqueId": "broken"',
      JSON.stringify({ ...alice, extra: 1 }),
      JSON.stringify({ ...bob, attributes: { ...bob.attributes, password: 'plain-text-password' } }),
      JSON.stringify({ ...bob, uniqueId: 'svcadmin', attributes: { mail: 'root@example.com' } }),
      JSON.stringify({ ...bob, uniqueId: 'ZED.z', attributes: { mail: 'z2@example.com' } }),
      JSON.stringify({ ...bob, uniqueId: 'x', attributes: { mail: 'not-a-mail', shoeSize: '44' } }),
      JSON.stringify({ ...bob, uniqueId: 'bad/id' }),
      JSON.stringify({ ...bob, uniqueId: 'y', created: 'yesterday', attributes: { mail: 'y@example.com' } }),
      '',
      JSON.stringify({ ...bob, uniqueId: 'z', attributes: { givenName: 'no mail' } }),
    ];
    const refused = await run(runImport, ['--config', target.file, '--context', 'employees'], { stdin: lines.join('\n') + '\n' });
    expect(refused.code).toBe(1);
    const problems = refused.stderr.split('\n').filter((line) => line.startsWith('  line '));
    expect(problems.map((line) => line.match(/^ {2}line (\d+):/)![1])).toEqual(['2', '3', '4', '5', '6', '7', '8', '9', '11']);
    expect(refused.stderr).toContain('line 3: unknown members: extra');
    expect(refused.stderr).toContain('line 4: password must hold PHC hashes');
    expect(refused.stderr).toContain('line 5: svcadmin is a reserved id');
    expect(refused.stderr).toContain('line 6: ZED.z is already on line 1');
    expect(refused.stderr).toMatch(/line 7: .*subject\.attributes\.mail: not an e-mail address; subject\.attributes\.shoeSize: unknown attribute "shoeSize"/);
    expect(refused.stderr).toContain('line 9: created is not an ISO 8601 timestamp');
    expect(refused.stderr).toContain('line 11: required attributes are missing: subject.attributes.mail');
    expect(refused.stderr).not.toContain('plain-text-password');
    expect((await run(runExport, ['--config', target.file, '--context', 'employees'])).stdout).toBe('');
  });

  test('a hash above passwords.maxCost refuses the whole import, naming the line (issue 24, item 10)', async () => {
    const target = await configFile();
    const [zed, alice, bob] = exported.trimEnd().split('\n').map((line) => JSON.parse(line));
    const b64 = (n: number) => Buffer.alloc(n, 7).toString('base64').replace(/=+$/, '');
    // At the shipped defaults (argon2id m=19456 t=2, scrypt ln=17 r=8 p=1) a stored hash may cost 4× as much.
    const lines = [
      JSON.stringify({ ...zed, attributes: { ...zed.attributes, password: `$argon2id$v=19$m=77824,t=2,p=1$${b64(16)}$${b64(32)}` } }),
      JSON.stringify({ ...alice, attributes: { ...alice.attributes, password: `$argon2id$v=19$m=65536,t=1000,p=1$${b64(16)}$${b64(32)}` } }),
      JSON.stringify({ ...bob, attributes: { ...bob.attributes, password: `$scrypt$ln=20,r=8,p=1$${b64(16)}$${b64(32)}` } }),
      JSON.stringify({ ...bob, uniqueId: 'carol', attributes: { mail: 'carol@example.com', password: `$scrypt$ln=17,r=8,p=64$${b64(16)}$${b64(32)}` } }),
      JSON.stringify({ ...bob, uniqueId: 'dave', attributes: { mail: 'dave@example.com', passwordQuestions: ['Q1?'], passwordAnswers: [`$argon2id$v=19$m=4194304,t=1,p=1$${b64(16)}$${b64(32)}`] } }),
    ];
    const refused = await run(runImport, ['--config', target.file, '--context', 'employees'], { stdin: lines.join('\n') + '\n' });
    expect(refused.code).toBe(1);
    const problems = refused.stderr.split('\n').filter((line) => line.startsWith('  line '));
    expect(problems).toEqual([
      expect.stringMatching(/^ {2}line 2: password: the hash's cost \(argon2id m=65536,t=1000,p=1\) is above passwords\.maxCost in time/),
      expect.stringMatching(/^ {2}line 3: password: the hash's cost \(scrypt ln=20,r=8,p=1\) is above passwords\.maxCost in memory/),
      expect.stringMatching(/^ {2}line 4: password: the hash's cost \(scrypt ln=17,r=8,p=64\) is above passwords\.maxCost in time/),
      expect.stringMatching(/^ {2}line 5: passwordAnswers: the hash's cost \(argon2id m=4194304,t=1,p=1\) is above passwords\.maxCost in memory/),
    ]);
    expect((await run(runExport, ['--config', target.file, '--context', 'employees'])).stdout).toBe('');
  });

  test('a value another subject holds refuses the whole import, naming the line', async () => {
    const target = await configFile();
    const [zed, , bob] = exported.trimEnd().split('\n').map((line) => JSON.parse(line));
    const stdin = [JSON.stringify(zed), JSON.stringify({ ...bob, attributes: { ...bob.attributes, mail: 'ZED@example.com' } })].join('\n');
    const refused = await run(runImport, ['--config', target.file, '--context', 'employees'], { stdin });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('line 2: subject bob: a unique value is already taken');
    expect((await run(runExport, ['--config', target.file, '--context', 'employees'])).stdout).toBe('');
  });

  test('shows progress on a terminal only', async () => {
    const quiet = await configFile();
    expect((await run(runImport, ['--config', quiet.file, '--context', 'employees'], { stdin: exported })).stderr).not.toContain('\r');
    const tty = await configFile();
    const shown = await run(runImport, ['--config', tty.file, '--context', 'employees'], { stdin: exported, tty: true });
    expect(shown.code).toBe(0);
    expect(shown.stderr).toContain('\rimport employees [##############################] 100% 3/3\n');
    const exportShown = await run(runExport, ['--config', tty.file, '--context', 'employees'], { tty: true });
    expect(exportShown.stdout).toBe(exported);
    expect(exportShown.stderr).toContain('\rexport employees [##############################] 100% 3/3\n');
  });

  test('refuses bad usage with the usage text', async () => {
    const usage = await run(runImport, ['--context', 'employees', 'a', 'b'], { env: { SVC_CONFIG: source.file } });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('at most one input file');
    expect(usage.stderr).toContain('Usage: svc import');
    expect((await run(runExport, ['--config', source.file, '--context', 'employees', '--replace'])).code).toBe(2);
    expect((await run(runImport, ['--bogus'])).code).toBe(2);
  });
});

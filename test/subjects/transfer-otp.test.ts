/**
 * svc export and svc import carry a subject's second factor still sealed (SPEC 15): bob enrolls on a
 * real core (a code of Debian's oathtool confirms it), the export's line holds his factor sealed
 * under the data directory's otp.key (never the secret), an import into a data directory without
 * that otp.key (or into another subject) is refused naming the line, and with it bob logs in to a
 * core on the imported data with his password and a code. A deleted subject's factor goes with it.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { runExport, runImport } from '../../server/src/subjects/transfer-command';
import { runTransfer } from '../helpers/transfer';
import { startTestServer, testConfigDocument, TEST_CREDENTIALS, TEST_HASH } from '../helpers/core-server';
import { send } from '../helpers/http';
import { login } from '../helpers/login';

const { users } = TEST_CREDENTIALS;
const oathtool = (secret: string) => execFileSync('oathtool', ['--totp', '-b', secret], { encoding: 'utf8' }).trim();

const run = (command: typeof runExport, argv: string[], stdin?: string) => runTransfer(command, argv, { stdin });

const dirs: string[] = [];
const hasher = new PasswordHasher({ ...TEST_HASH, precomputeDummy: false });
async function configFile(): Promise<{ file: string; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-transfer-otp-'));
  dirs.push(dataDir);
  const file = join(dataDir, 'svc.json');
  writeFileSync(file, JSON.stringify(await testConfigDocument(dataDir, hasher)));
  return { file, dataDir };
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

let source: { file: string; dataDir: string };
let secret: string;
let exported: string;

beforeAll(async () => {
  source = await configFile();
  const server = await startTestServer({ dataDir: source.dataDir });
  const session = await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob });
  const path = `${server.baseUrl}/resources/contexts/employees/subjects/bob/otp`;
  secret = (await send(path, { cookie: session.cookie, json: { password: users.bob } })).json!.secret as string;
  expect((await send(path, { method: 'PUT', cookie: session.cookie, json: { code: oathtool(secret) } })).status).toBe(200);
  await server.stop({ keepData: true });
  exported = (await run(runExport, ['--config', source.file, '--context', 'employees'])).stdout;
});

test('the export carries the factor still sealed, never the secret', () => {
  const bob = exported.split('\n').map((line) => (line ? JSON.parse(line) : undefined)).find((line) => line?.uniqueId === 'bob');
  expect(bob.secondFactor).toEqual({ secret: expect.stringMatching(/^v1\./), confirmed: true, recovery: expect.any(Array) });
  expect(bob.secondFactor.recovery).toHaveLength(10);
  expect(exported).not.toContain(secret);
  const alice = exported.split('\n').map((line) => (line ? JSON.parse(line) : undefined)).find((line) => line?.uniqueId === 'alice');
  expect(alice.secondFactor).toBeUndefined();
});

test('an import without the otp.key it was sealed under, or onto another subject, is refused naming the line; nothing is written', async () => {
  const target = await configFile();
  const refused = await run(runImport, ['--config', target.file, '--context', 'employees'], exported);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/line \d+: secondFactor needs the otp.key it was sealed under/);
  copyFileSync(join(source.dataDir, 'otp.key'), join(target.dataDir, 'otp.key'));
  const moved = exported.replace('"uniqueId":"bob"', '"uniqueId":"bobby"');
  const other = await run(runImport, ['--config', target.file, '--context', 'employees'], moved);
  expect(other.code).toBe(1);
  expect(other.stderr).toMatch(/secondFactor was sealed under another otp.key, or for another subject/);
});

test('with the same otp.key, bob logs in to the imported data with his password and a code', async () => {
  const target = await configFile();
  copyFileSync(join(source.dataDir, 'otp.key'), join(target.dataDir, 'otp.key'));
  expect((await run(runImport, ['--config', target.file, '--context', 'employees'], exported)).code).toBe(0);
  const server = await startTestServer({ dataDir: target.dataDir, seed: false });
  try {
    const first = await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob });
    expect(first.json!.code).toBe('otp_required');
    const second = await login(server.baseUrl, { clientid: 'svc-web', pending: first.json!.pending as string, otp: oathtool(secret) });
    expect(second.status).toBe(200);
    expect((second.json!.session as { level: number }).level).toBe(3);
    // A deleted subject's factor goes with it: bob made anew has none.
    await server.core.subjects.delete('employees', 'bob');
    expect(server.core.secondFactors.has({ contextId: 'employees', uniqueId: 'bob' })).toBe(false);
  } finally {
    await server.stop();
  }
});

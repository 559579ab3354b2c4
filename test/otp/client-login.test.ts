/**
 * The client library and `svc cli login` with a second factor (SPEC 15): the library sends a code
 * given with the password, or asks its `otp` function only when the core answers `otp_required`
 * (sealed for a client with a secret); the CLI takes the code from SVC_OTP (or a prompt). The core's
 * clock is injected near the real one, so the children's clientcred is fresh and every code's step
 * is chosen. Runs the built `svc` (npm test builds first).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '../../client/src/connection';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send } from '../helpers/http';
import { login } from '../helpers/login';
import { runCli } from '../helpers/svc-process';

jest.setTimeout(120_000);

const { users } = TEST_CREDENTIALS;
let clock = Math.floor(Date.now() / 30_000) * 30_000;
let server: TestServer;
let secret: string;
let home: string;
const oathtool = () => execFileSync('oathtool', ['--totp', '-b', secret, '--now', `@${Math.floor(clock / 1000)}`], { encoding: 'utf8' }).trim();

beforeAll(async () => {
  server = await startTestServer({ now: () => clock });
  home = mkdtempSync(join(tmpdir(), 'svc-otp-cli-'));
  const session = await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob });
  const otp = `${server.baseUrl}/resources/contexts/employees/subjects/bob/otp`;
  secret = (await send(otp, { cookie: session.cookie, json: { password: users.bob } })).json!.secret as string;
  expect((await send(otp, { method: 'PUT', cookie: session.cookie, json: { code: oathtool() } })).status).toBe(200);
});
afterAll(async () => {
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

const config = () => ({ baseUrl: server.baseUrl, clientId: 'svc-api', secret: TEST_CREDENTIALS.clients['svc-api'] });

test('the library asks for the code only when the core wants one, and seals it', async () => {
  clock += 30_000;
  let asked = 0;
  const conn = await Connection.open({ kind: 'password', user: 'bob', password: users.bob, otp: () => (asked++, oathtool()) }, { config: config() });
  expect(asked).toBe(1);
  expect((await conn.session()).level).toBe(3);
  await conn.close();
  clock += 30_000;
  const withCode = await Connection.open({ kind: 'password', user: 'bob', password: users.bob, otp: oathtool() }, { config: config() });
  expect((await withCode.session()).level).toBe(3);
  await withCode.close();
  await expect(Connection.open({ kind: 'password', user: 'bob', password: users.bob }, { config: config() })).rejects.toMatchObject({ code: 'otp_required' });
});

test('svc cli login takes the code from SVC_OTP', async () => {
  clock += 30_000;
  const env = { SVC_CLIENT_SECRET: TEST_CREDENTIALS.clients['svc-api'], SVC_PASSWORD: users.bob, SVC_OTP: oathtool() };
  const done = await runCli(home, ['login', '--base-url', server.baseUrl, '--client-id', 'svc-api', '--user', 'bob'], { env });
  expect(done).toMatchObject({ code: 0, stderr: '' });
  const whoami = await runCli(home, ['whoami', '--json'], { env: { SVC_CLIENT_SECRET: TEST_CREDENTIALS.clients['svc-api'] } });
  expect(JSON.parse(whoami.stdout)).toMatchObject({ type: 'USER', level: 3 });
  // The same code again: its step is spent.
  const replayed = await runCli(home, ['login', '--base-url', server.baseUrl, '--client-id', 'svc-api', '--user', 'bob'], { env });
  expect(replayed.code).toBe(1);
  expect(replayed.stderr).toMatch(/login_failed/);
});

/**
 * SPEC 16's flows through the client library (XML on the wire) and `svc cli`, against a real core
 * that sends to the demo's development mailbox.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, SvcClientError, type ConnectionOptions } from '../../client/src';
import { startMailbox, type CaughtMessage, type RunningMailbox } from '../../server/src/demo/mailbox';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { runCli } from '../helpers/svc-process';

let server: TestServer;
let mailbox: RunningMailbox;
let home: string;

beforeAll(async () => {
  mailbox = await startMailbox({ smtpPort: 0 });
  home = mkdtempSync(join(tmpdir(), 'svc-mail-cli-'));
  server = await startTestServer({
    configure: (doc) => {
      doc.mail = { smtp: { host: '127.0.0.1', port: mailbox.smtpPort, requireTLS: false, from: 'svc <svc@localhost>' }, publicBase: 'http://127.0.0.1/svc', retry: { initialSeconds: 0.2, maxSeconds: 0.5 } };
      const contexts = doc.contexts as Array<Record<string, Record<string, unknown>>>;
      contexts[0].forgottenPassword.methods = ['questions', 'email'];
      contexts[1].registration.verifyEmail = true;
    },
  });
});
afterAll(async () => {
  await server.stop();
  await mailbox.close();
  rmSync(home, { recursive: true, force: true });
});

const options = (contextId?: string): ConnectionOptions => ({ config: { baseUrl: server.baseUrl, clientId: 'svc-web' }, contextId });

/** The token of the newest message to `to` with this subject, waiting for it. */
async function tokenOf(to: string, subject: string, seen = 0): Promise<string> {
  for (;;) {
    const found = mailbox.messages().filter((m: CaughtMessage) => m.to.includes(to) && m.subject === subject);
    if (found.length > seen) return new URL(found[seen].text.match(/https?:\S+/)![0]).searchParams.get('token')!;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('the client registers, verifies, recovers by link and changes an address, in XML', async () => {
  const visitor = await Connection.open({ kind: 'anonymous' }, options('customers'));
  try {
    expect(await visitor.register({ uniqueId: 'fay', attributes: { mail: 'fay@example.org', givenName: 'Fay', familyName: 'Fox', password: 'Fay-registers-2024' } })).toEqual({ status: 'verification_sent' });
    const token = await tokenOf('fay@example.org', 'Confirm your e-mail address');
    await visitor.verifyEmail(token);
    await expect(visitor.verifyEmail(token)).rejects.toMatchObject({ code: 'invalid_token', status: 400 });
    expect(await visitor.resendVerification('fay')).toBe('If the name is registered and not confirmed yet, a new link is on its way.');

    visitor.contextId = 'employees';
    expect(await visitor.requestPasswordReset('alice')).toBe('If the name is known, a link is on its way.');
    const reset = await tokenOf('alice@example.com', 'Choose a new password');
    await expect(visitor.resetPassword(reset, 'short')).rejects.toBeInstanceOf(SvcClientError);
    await visitor.resetPassword(reset, 'Alice-by-client-2024');
  } finally {
    await visitor.close();
  }

  const fay = await Connection.open({ kind: 'password', user: 'fay', password: 'Fay-registers-2024' }, options('customers'));
  try {
    await fay.changeMail('fay', 'fay@new.example', 'Fay-registers-2024');
    expect(await fay.mail('fay')).toMatchObject({ mail: 'fay@example.org', pending: { mail: 'fay@new.example' } });
    await fay.verifyEmail(await tokenOf('fay@new.example', 'Confirm your new e-mail address'));
    expect(await fay.mail('fay')).toEqual({ mail: 'fay@new.example', pending: null });
  } finally {
    await fay.close();
  }
  const alice = await Connection.open({ kind: 'password', user: 'alice', password: 'Alice-by-client-2024' }, options());
  await alice.close();
});

test('svc cli: reset-link and reset-password as a visitor', async () => {
  const env = { SVC_BASE_URL: server.baseUrl, SVC_CLIENT_ID: 'svc-web' };
  const seen = mailbox.messages().filter((m) => m.to.includes('bob@example.com') && m.subject === 'Choose a new password').length;
  const asked = await runCli(home, ['reset-link', 'bob'], { env });
  expect(asked).toMatchObject({ code: 0, stdout: 'If the name is known, a link is on its way.\n' });
  const token = await tokenOf('bob@example.com', 'Choose a new password', seen);
  const used = await runCli(home, ['reset-password', token], { env: { ...env, SVC_NEW_PASSWORD: 'Bob-by-cli-2024-x' } });
  expect(used.code).toBe(0);
  expect(used.stdout).toContain('password changed');
  const again = await runCli(home, ['reset-password', token], { env: { ...env, SVC_NEW_PASSWORD: 'Bob-by-cli-2024-y' } });
  expect(again.code).not.toBe(0);
  expect(again.stderr).toMatch(/link/i);
  // A token may begin with "-" (base64url): it is still the token, not an option.
  const dashed = await runCli(home, ['reset-password', `-${token.slice(1)}`], { env: { ...env, SVC_NEW_PASSWORD: 'Bob-by-cli-2024-z' } });
  expect(dashed.code).toBe(1);
  expect(dashed.stderr).toMatch(/link/i);
  const dashedVerify = await runCli(home, ['verify-email', `--${token.slice(2)}`, '--base-url', server.baseUrl], { env });
  expect(dashedVerify.code).toBe(1);
  expect(dashedVerify.stderr).toMatch(/link/i);
  const bob = await Connection.open({ kind: 'password', user: 'bob', password: 'Bob-by-cli-2024-x' }, options());
  await bob.close();
  expect(TEST_CREDENTIALS.users.bob).not.toBe('Bob-by-cli-2024-x');
});

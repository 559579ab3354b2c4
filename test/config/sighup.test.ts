import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { testConfigDocument, TEST_HASH } from '../helpers/core-server';

const BIN = resolve(__dirname, '../../dist/bin/svc.js');

test('svc server reloads its file on SIGHUP, refuses a bad one and keeps running', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sighup-'));
  const file = join(dir, 'svc.json');
  const doc = await testConfigDocument(dir, new PasswordHasher({ ...TEST_HASH, precomputeDummy: false }));
  writeFileSync(file, JSON.stringify(doc));
  const child = spawn(process.execPath, [BIN, 'server', '--config', file], { env: { ...process.env, SVC_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const messages: Array<Record<string, unknown>> = [];
  const waitFor = (msg: string) =>
    new Promise<Record<string, unknown>>((resolvePromise) => {
      const found = messages.find((m) => m.msg === msg);
      if (found) return resolvePromise(found);
      const onLine = (line: string) => {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (entry.msg === msg) {
          lines.off('line', onLine);
          resolvePromise(entry);
        }
      };
      lines.on('line', onLine);
      return undefined;
    });
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => messages.push(JSON.parse(line)));
  try {
    const { url } = (await waitFor('core server listening')) as { url: string };
    const deniedStatus = async () => (await fetch(`${url}/svc/resources/contexts/employees/subjects/bob`)).status;
    expect(await deniedStatus()).toBe(401);

    writeFileSync(file, JSON.stringify({ ...doc, global: { 'authz.denyStatus': 403 } }));
    const reloaded = waitFor('configuration reloaded');
    child.kill('SIGHUP');
    await reloaded;
    expect(await deniedStatus()).toBe(403);

    writeFileSync(file, JSON.stringify({ ...doc, clients: [{ id: 'x', authenticators: ['nope'], contexts: ['employees'] }] }));
    const refused = waitFor('reload refused; the running configuration stays');
    child.kill('SIGHUP');
    expect((await refused).problems).toEqual(expect.arrayContaining(['clients[0].authenticators[0]: unknown authenticator "nope"']));
    expect(await deniedStatus()).toBe(403);
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
});

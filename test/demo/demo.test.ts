import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { bodyOf } from '../helpers/json';

const BIN = resolve(__dirname, '../../dist/bin/svc.js');

interface Demo {
  child: ChildProcess;
  core: string;
  gateway: string;
  log: string[];
}

/** Runs the built `svc demo` (what `npm start` runs) on ephemeral ports, until it says it is ready. */
function startDemo(dataDir: string): Promise<Demo> {
  const child = spawn(process.execPath, [BIN, 'demo'], {
    env: { ...process.env, SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_GATEWAY_PORT: '0', SVC_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  return new Promise((resolvePromise, reject) => {
    child.once('exit', (code) => reject(new Error(`svc demo exited with ${code}: ${log.join('\n')}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      log.push(line);
      const entry = JSON.parse(line) as { msg?: string; core?: string; gateway?: string };
      if (entry.msg === 'svc demo ready') resolvePromise({ child, core: entry.core!, gateway: entry.gateway!, log });
    });
  });
}

function stop(demo: Demo): Promise<number | null> {
  return new Promise((resolvePromise) => {
    demo.child.removeAllListeners('exit');
    demo.child.once('exit', (code) => resolvePromise(code));
    demo.child.kill('SIGTERM');
  });
}

async function login(core: string, user: string, password: string): Promise<Response> {
  return fetch(`${core}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ clientid: 'svc-web', user, password }),
  });
}

test('npm start seeds an empty data directory, and a second start reuses it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-demo-'));
  try {
    const first = await startDemo(dataDir);
    const file = join(dataDir, 'demo-credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const credentials = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(credentials).sort()).toEqual(['answers', 'clients', 'portalUsers', 'portals', 'users']);

    const alice = await login(first.core, 'alice', credentials.users.alice);
    expect(alice.status).toBe(200);
    expect((await bodyOf(alice)).session).toMatchObject({ type: 'USER', principal: { uniqueId: 'alice', contextId: 'employees' } });
    expect((await login(first.core, 'svcadmin', credentials.users.svcadmin)).status).toBe(200);
    expect((await fetch(`${new URL(first.gateway).origin}/health`)).status).toBe(200);
    expect(await stop(first)).toBe(0);

    // The log names the file, never a secret from it.
    const secrets = [...Object.values(credentials.users), ...Object.values(credentials.clients), ...Object.values(credentials.portals)] as string[];
    for (const secret of secrets) expect(first.log.join('\n')).not.toContain(secret);

    const second = await startDemo(dataDir);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(credentials);
    expect(second.log.some((line) => line.includes('reusing the demo data directory'))).toBe(true);
    expect((await login(second.core, 'bob@example.com', credentials.users.bob)).status).toBe(200);
    expect(await stop(second)).toBe(0);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

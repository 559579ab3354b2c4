import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bodyOf } from '../helpers/json';
import { startDemo, stopSvc as stop } from '../helpers/svc-process';

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
    expect(Object.keys(credentials).sort()).toEqual(['answers', 'clients', 'portals', 'users']);

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

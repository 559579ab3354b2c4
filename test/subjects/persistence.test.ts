import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../helpers/core-server';
import { bodyOf } from '../helpers/json';
import { sessionCookie } from '../helpers/sessions';

test('a subject written before a restart is read back after it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-persist-'));
  try {
    const first = await startTestServer({ dataDir });
    const cookie = await sessionCookie(first, 'USER', { uniqueId: 'alice', contextId: 'employees' });
    const created = await fetch(`${first.baseUrl}/resources/contexts/employees/subjects`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ subject: { uniqueId: 'frank', attributes: { mail: 'frank@example.com', givenName: 'Frank' } } }),
    });
    expect(created.status).toBe(201);
    await first.stop();

    const second = await startTestServer({ dataDir, seed: false });
    const again = await sessionCookie(second, 'USER', { uniqueId: 'alice', contextId: 'employees' });
    const read = await fetch(`${second.baseUrl}/resources/contexts/employees/subjects/frank`, { headers: { cookie: again } });
    expect(read.status).toBe(200);
    expect((await bodyOf(read)).subject.attributes).toMatchObject({ mail: 'frank@example.com', givenName: 'Frank' });
    // Uniqueness survives the restart too: the store, not the process, enforces it.
    const duplicate = await second.core.subjects.create('employees', 'frank2', { mail: 'FRANK@example.com' }, 'admin').catch((e: { status: number }) => e.status);
    expect(duplicate).toBe(409);
    await second.stop();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

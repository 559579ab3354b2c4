import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SqliteSubjectStore } from '../../server/src/subjects/sqlite-store';
import { subjectStoreContract } from './store-contract';

const directories: string[] = [];
const newFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
  directories.push(dir);
  return join(dir, 'svc.db');
};
afterAll(() => {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
});

describe('SqliteSubjectStore', () => {
  subjectStoreContract({ make: async () => new SqliteSubjectStore(newFile()) });

  test('belongs to one process: a second opening of its file is refused with a clear error', async () => {
    const file = newFile();
    const first = new SqliteSubjectStore(file);
    try {
      expect(() => new SqliteSubjectStore(file)).toThrow(/in use by another process/);
    } finally {
      await first.close();
    }
    const again = new SqliteSubjectStore(file);
    await again.close();
    expect(dirname(file)).toContain('svc-store-');
  });
});

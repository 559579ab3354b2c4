import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemorySubjectStore } from '../../server/src/subjects/memory-store';
import { SqliteSubjectStore } from '../../server/src/subjects/sqlite-store';
import type { SubjectStore } from '../../server/src/subjects/store';

const variants: Array<[string, () => SubjectStore]> = [
  ['memory', () => new MemorySubjectStore()],
  ['sqlite', () => new SqliteSubjectStore(join(mkdtempSync(join(tmpdir(), 'svc-store-')), 'svc.db'))],
];

describe.each(variants)('%s store', (_name, make) => {
  let store: SubjectStore;
  beforeEach(() => {
    store = make();
  });
  afterEach(() => store.close());

  test('exists answers as get does, per context, without reading the subject', async () => {
    await store.create('employees', { uniqueId: 'bob', attributes: { mail: 'bob@example.com' }, keys: ['mail:bob@example.com'], indexed: [['mail', 'bob@example.com']] });
    expect(await store.exists('employees', 'bob')).toBe(true);
    expect(await store.exists('employees', 'Bob')).toBe(false);
    expect(await store.exists('customers', 'bob')).toBe(false);
    await store.delete('employees', 'bob');
    expect(await store.exists('employees', 'bob')).toBe(false);
    expect(await store.get('employees', 'bob')).toBeUndefined();
  });
});

test('a SQLite store belongs to one process: a second opening of its file is refused with a clear error', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'svc-store-')), 'svc.db');
  const first = new SqliteSubjectStore(file);
  try {
    expect(() => new SqliteSubjectStore(file)).toThrow(/in use by another process/);
  } finally {
    void first.close();
  }
  const again = new SqliteSubjectStore(file);
  void again.close();
});

/**
 * The mail store's contract (SPEC 16) on SQLite and PostgreSQL: a queued message is claimed by one
 * caller at a time and again after its lease, a token is taken exactly once however many race for
 * it, and the unverified and pending-address records.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_POSTGRES } from '../../server/src/config/defaults';
import type { MailStore, StoredToken } from '../../server/src/mail/mail-store';
import { PostgresMailStore } from '../../server/src/mail/postgres-mail-store';
import { SqliteMailStore } from '../../server/src/mail/sqlite-mail-store';
import { suiteSchemas } from '../helpers/postgres';
import { describeWithService, postgresRequirement } from '../helpers/services';

function contract(open: () => Promise<{ stores: [MailStore, MailStore]; close(): Promise<void> }>): void {
  let stores: [MailStore, MailStore];
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ stores, close } = await open());
  });
  afterEach(() => close());

  test('a due message is claimed by one of two stores sharing it, again only after its lease, gone once removed', async () => {
    const [a, b] = stores;
    await a.enqueue({ kind: 'reset', contextId: 'employees', uniqueId: 'bob', address: 'bob@example.com', notAfter: 10_000 }, 1_000);
    expect(await b.queued()).toBe(1);
    const claims = await Promise.all([a.claim(1_000, 5_000), b.claim(1_000, 5_000)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    const claimed = claims.find(Boolean)!;
    expect(claimed).toMatchObject({ kind: 'reset', contextId: 'employees', uniqueId: 'bob', address: 'bob@example.com', notAfter: 10_000, attempts: 0, created: 1_000 });
    expect(await a.claim(5_999, 5_000)).toBeUndefined();
    expect((await b.claim(6_000, 5_000))?.id).toBe(claimed.id);
    await a.retry(claimed.id, 1, 7_000);
    expect(await b.nextDue()).toBe(7_000);
    expect((await a.claim(7_000, 5_000))?.attempts).toBe(1);
    await b.remove(claimed.id);
    expect(await a.queued()).toBe(0);
    expect(await a.nextDue()).toBeUndefined();
  });

  test('a token is taken once, whoever races for it, and not after it expired', async () => {
    const [a, b] = stores;
    const token: StoredToken = { hash: 'h1', kind: 'reset', contextId: 'employees', uniqueId: 'bob', address: 'bob@example.com', bound: 'digest', expires: 10_000 };
    await a.putToken(token);
    const takes = await Promise.all([a.takeToken('h1', 'reset', 1_000), b.takeToken('h1', 'reset', 1_000), a.takeToken('h1', 'reset', 1_000)]);
    expect(takes.filter(Boolean)).toEqual([token]);
    await a.putToken({ ...token, hash: 'h2' });
    expect(await b.takeToken('h2', 'verify', 1_000)).toBeUndefined();
    expect(await b.takeToken('h2', 'reset', 10_000)).toBeUndefined();
    expect(await b.takeToken('h2', 'reset', 1_000)).toBeUndefined();
  });

  test('unverified registrants and pending addresses', async () => {
    const [a, b] = stores;
    await a.markUnverified('customers', 'carol', 1_000);
    expect(await b.unverifiedSince('customers', 'carol')).toBe(1_000);
    expect(await b.unverifiedBefore(1_001, 10)).toEqual([{ contextId: 'customers', uniqueId: 'carol' }]);
    expect(await b.unverifiedBefore(1_000, 10)).toEqual([]);
    expect(await a.clearUnverified('customers', 'carol')).toBe(true);
    expect(await b.clearUnverified('customers', 'carol')).toBe(false);
    await a.setPendingAddress('customers', 'carol', 'new@example.org', 5_000);
    await b.setPendingAddress('customers', 'carol', 'newer@example.org', 6_000);
    expect(await a.pendingAddress('customers', 'carol', 1_000)).toEqual({ address: 'newer@example.org', expires: 6_000 });
    expect(await a.pendingAddress('customers', 'carol', 6_000)).toBeUndefined();
    await b.clearPendingAddress('customers', 'carol');
    expect(await a.pendingAddress('customers', 'carol', 1_000)).toBeUndefined();
  });
}

describe('SQLite (mail.sqlite, two connections)', () => {
  contract(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-mail-store-'));
    const stores: [MailStore, MailStore] = [new SqliteMailStore(join(dir, 'mail.sqlite')), new SqliteMailStore(join(dir, 'mail.sqlite'))];
    return {
      stores,
      async close() {
        await Promise.all(stores.map((s) => s.close()));
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

describeWithService(postgresRequirement(), 'PostgreSQL (two pools on one schema)', () => {
  const schemas = suiteSchemas('mail');
  contract(async () => {
    const { url } = await schemas.create();
    const settings = { ...DEFAULT_POSTGRES, url };
    const stores: [MailStore, MailStore] = [new PostgresMailStore(settings), new PostgresMailStore(settings)];
    await Promise.all(stores.map((s) => s.open()));
    return { stores, close: async () => void (await Promise.all(stores.map((s) => s.close()))) };
  });
});

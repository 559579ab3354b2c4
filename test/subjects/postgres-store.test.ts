/**
 * The store contract and what is PostgreSQL's own (migrations, the database's constraints, timeouts,
 * unavailability), against a real PostgreSQL (the local `test` database, or SVC_TEST_PG_URL). Every
 * store gets a schema of its own, dropped after the suite; without PostgreSQL the suite is skipped
 * (or fails under SVC_TEST_REQUIRE_ALL=1).
 */
import { Client } from 'pg';
import { ServiceUnavailable } from '../../common/src/errors';
import { DEFAULT_POSTGRES } from '../../server/src/config/defaults';
import type { PostgresSettings } from '../../server/src/config/types';
import { LATEST_VERSION, MIGRATIONS } from '../../server/src/subjects/postgres-migrations';
import { parseTimestamp, PostgresSubjectStore } from '../../server/src/subjects/postgres-store';
import type { SubjectStore } from '../../server/src/subjects/store';
import { adminQuery, suiteSchemas } from '../helpers/postgres';
import { describeWithService, PG_URL, postgresRequirement } from '../helpers/services';
import { subjectStoreContract } from './store-contract';

const postgres = postgresRequirement();

test('timestamps read back as ISO 8601 in UTC with milliseconds, whatever form PostgreSQL gives', () => {
  expect(parseTimestamp('2024-01-02 03:04:05.678+00')).toBe('2024-01-02T03:04:05.678Z');
  expect(parseTimestamp('2024-01-02 03:04:05+00')).toBe('2024-01-02T03:04:05.000Z');
  expect(parseTimestamp('2024-01-02 03:04:05.5+00')).toBe('2024-01-02T03:04:05.500Z');
  expect(parseTimestamp('2024-01-02 03:04:05.678901+00')).toBe('2024-01-02T03:04:05.678Z');
  expect(parseTimestamp('2024-01-02 05:04:05.678+02')).toBe('2024-01-02T03:04:05.678Z');
  expect(parseTimestamp('2024-01-02 03:34:05.678+00:30')).toBe('2024-01-02T03:04:05.678Z');
});

describeWithService(postgres, 'PostgresSubjectStore', () => {
  const schemas = suiteSchemas('store');
  const urls = new WeakMap<SubjectStore, string>();
  const settings = (url: string, more: Partial<PostgresSettings> = {}): PostgresSettings => ({ ...DEFAULT_POSTGRES, url, ...more });
  const opened: PostgresSubjectStore[] = [];
  const storeOn = async (url: string, more: Partial<PostgresSettings> = {}) => {
    const store = new PostgresSubjectStore(settings(url, more));
    opened.push(store);
    urls.set(store, url);
    return store;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });

  describe('the store contract', () => {
    subjectStoreContract({
      make: async () => {
        const store = await storeOn((await schemas.create()).url);
        await store.open();
        return store;
      },
      twin: async (store) => {
        const twin = await storeOn(urls.get(store)!);
        await twin.open();
        return twin;
      },
    });
  });

  describe('migrations', () => {
    const versionRows = (schema: string) => adminQuery<{ version: number; description: string }>(`SELECT version, description FROM ${schema}.svc_schema_version ORDER BY version`);

    it('with migrate "refuse", a fresh schema is refused with a message naming svc migrate; after migrate it opens', async () => {
      const { schema, url } = await schemas.create();
      const store = await storeOn(url, { migrate: 'refuse' });
      await expect(store.open()).rejects.toThrow(new RegExp(`version 0 and this svc needs version ${LATEST_VERSION}.*svc migrate --config FILE`));
      // Nothing was created behind the refusal; a call answers 503.
      expect(await adminQuery(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1`, [schema])).toEqual([]);
      await expect(store.get('employees', 'bob')).rejects.toBeInstanceOf(ServiceUnavailable);
      const migrator = await storeOn(url);
      const all = MIGRATIONS.map((_, i) => i + 1);
      await expect(migrator.migrate()).resolves.toEqual(all);
      await expect(migrator.migrate()).resolves.toEqual([]);
      expect(await versionRows(schema)).toEqual(MIGRATIONS.map((m, i) => ({ version: i + 1, description: m.description })));
      await expect(store.open()).resolves.toBeUndefined();
      await expect(store.count('employees')).resolves.toBe(0);
    });

    it('with migrate "auto", cores starting together migrate once', async () => {
      const { schema, url } = await schemas.create();
      const stores = await Promise.all(Array.from({ length: 4 }, () => storeOn(url)));
      await Promise.all(stores.map((s) => s.open()));
      expect((await versionRows(schema)).map((r) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
      expect(LATEST_VERSION).toBe(MIGRATIONS.length);
    });

    it('migration 2 marks the least value of each subject\'s attribute in a schema at version 1, so sorted searches see the old subjects', async () => {
      const { schema, url } = await schemas.create();
      await adminQuery(`SET search_path TO ${schema}; ${MIGRATIONS[0].sql};
        CREATE TABLE svc_schema_version (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
        INSERT INTO svc_schema_version (version, description) VALUES (1, 'v1');
        INSERT INTO subjects VALUES ('employees', 'a', 'a', '{"mail":["z@x.org","b@x.org"]}', 1, now(), now()), ('employees', 'b', 'b', '{"mail":"c@x.org"}', 1, now(), now());
        INSERT INTO subject_values VALUES ('employees', 'a', 'mail', 'z@x.org'), ('employees', 'a', 'mail', 'b@x.org'), ('employees', 'b', 'mail', 'c@x.org');`);
      const store = await storeOn(url);
      await store.open();
      const page = await store.search('employees', { sort: { attribute: 'mail', descending: true }, offset: 0, quantity: 10 });
      expect(page.results.map((s) => s.uniqueId)).toEqual(['b', 'a']);
    });

    it('a schema newer than this svc is refused, whatever migrate says', async () => {
      const { schema, url } = await schemas.create();
      await (await storeOn(url)).migrate();
      await adminQuery(`INSERT INTO ${schema}.svc_schema_version (version, description) VALUES ($1, 'from the future')`, [LATEST_VERSION + 1]);
      await expect((await storeOn(url)).open()).rejects.toThrow(/newer than this svc/);
      await expect((await storeOn(url, { migrate: 'refuse' })).open()).rejects.toThrow(/newer than this svc/);
    });

    it('a search_path naming no schema is said plainly', async () => {
      const store = await storeOn(`${PG_URL}?options=${encodeURIComponent('-c search_path=svc_no_such_schema')}`);
      await expect(store.open()).rejects.toThrow(/names no existing schema/);
    });
  });

  describe('the database enforces what must hold across cores', () => {
    it('uniqueness lives in the schema: a duplicate folded key or a uniqueId in another case is refused by PostgreSQL itself', async () => {
      const { schema, url } = await schemas.create();
      const store = await storeOn(url);
      await store.create('employees', { uniqueId: 'bob', attributes: {}, keys: ['login:bob', 'unique:mail:b@x.org'], indexed: [] });
      await expect(adminQuery(`INSERT INTO ${schema}.subjects VALUES ('employees', 'BOB', 'bob', '{}', 1, now(), now())`)).rejects.toThrow(/duplicate key value violates unique constraint "subjects_id_lc"/);
      await adminQuery(`INSERT INTO ${schema}.subjects VALUES ('employees', 'carol', 'carol', '{}', 1, now(), now())`);
      await expect(adminQuery(`INSERT INTO ${schema}.subject_keys VALUES ('employees', 'unique:mail:b@x.org', 'carol')`)).rejects.toThrow(/subject_keys_pkey/);
      // Keys of a subject that does not exist cannot be held either.
      await expect(adminQuery(`INSERT INTO ${schema}.subject_keys VALUES ('employees', 'login:ghost', 'ghost')`)).rejects.toThrow(/foreign key/);
    });

    it('ids and folded values use the C collation (code-point order) whatever the database default', async () => {
      const { schema, url } = await schemas.create();
      await (await storeOn(url)).migrate();
      const columns = await adminQuery<{ column: string; collation_name: string | null }>(
        `SELECT table_name || '.' || column_name AS column, collation_name FROM information_schema.columns
         WHERE table_schema = $1 AND column_name IN ('id', 'id_lc', 'key', 'subject_id', 'value_lc', 'name', 'at') AND data_type = 'text' ORDER BY 1`,
        [schema],
      );
      expect(columns.map((c) => c.column)).toEqual([
        'scim_groups.id',
        'scim_groups.name',
        'subject_events.at',
        'subject_events.subject_id',
        'subject_keys.key',
        'subject_keys.subject_id',
        'subject_values.name',
        'subject_values.subject_id',
        'subject_values.value_lc',
        'subjects.id',
        'subjects.id_lc',
      ]);
      for (const column of columns) expect(column.collation_name).toBe('C');
    });

    it('a statement that runs past statementTimeoutMs is cancelled by the database and answers 503', async () => {
      const { schema, url } = await schemas.create();
      const store = await storeOn(url, { statementTimeoutMs: 300 });
      await store.create('employees', { uniqueId: 'bob', attributes: {}, keys: ['login:bob'], indexed: [] });
      const locker = new Client({ connectionString: PG_URL });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query(`SELECT * FROM ${schema}.subjects WHERE id = 'bob' FOR UPDATE`);
        const error = await store.update('employees', { uniqueId: 'bob', attributes: { a: '1' }, keys: ['login:bob'], indexed: [] }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ServiceUnavailable);
        expect((error as ServiceUnavailable).message).toBe('the subject store did not answer in time');
        expect((error as ServiceUnavailable).headers['Retry-After']).toBe('1');
      } finally {
        await locker.query('ROLLBACK');
        await locker.end();
      }
      expect((await store.get('employees', 'bob'))!.version).toBe(1);
    });
  });

  describe('when PostgreSQL cannot be reached', () => {
    it('calls answer 503 within the connection timeout, ping says false, and open gives the reason', async () => {
      const store = await storeOn('postgres://postgres@127.0.0.1:1/test', { connectTimeoutMs: 500 });
      await expect(store.ping()).resolves.toBe(false);
      await expect(store.open()).rejects.toThrow(/ECONNREFUSED/);
      const error = await store.get('employees', 'bob').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceUnavailable);
      expect((error as ServiceUnavailable).message).toBe('the subject store is unavailable');
      await expect(store.search('employees', { offset: 0, quantity: 1 })).rejects.toBeInstanceOf(ServiceUnavailable);
      await expect(store.create('employees', { uniqueId: 'x', attributes: {}, keys: [], indexed: [] })).rejects.toBeInstanceOf(ServiceUnavailable);
    });

    it('a closed store answers 503 and ping false', async () => {
      const store = await storeOn((await schemas.create()).url);
      await expect(store.ping()).resolves.toBe(true);
      await store.close();
      await store.close();
      await expect(store.ping()).resolves.toBe(false);
      await expect(store.exists('employees', 'bob')).rejects.toBeInstanceOf(ServiceUnavailable);
    });
  });
});

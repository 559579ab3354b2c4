import { Client, DatabaseError, Pool, types, type PoolClient, type QueryConfig, type QueryResultRow } from 'pg';
import { Conflict, NotFound, PreconditionFailed, ServiceUnavailable, SvcError } from '../../../common/src/errors';
import type { Logger } from '../../../common/src/log';
import type { PostgresSettings } from '../config/types';
import { DISTINCT_VALUES_SQL, filterToSql, prefixRange } from './filter/to-sql';
import { openOnce } from './open-once';
import { checkSchema, migrateSchema, SchemaVersionError } from './postgres-migrations';
import { importPostgresGroups, PostgresSubjectGroups, type Query } from './postgres-groups';
import { PostgresSubjectEvents } from './postgres-events';
import { leastFlags, sortedPage } from './sort';
import { importConflict, keysTaken, type ImportedSubject, type ImportOptions, type SearchPage, type SearchQuery, type SearchSort, type SubjectStore, type SubjectWrite } from './store';
import type { Attributes, StoredSubject } from './subject';

interface Row {
  id: string;
  attributes: Attributes;
  version: number;
  /** ISO 8601 in UTC (parseTimestamp). */
  created: string;
  modified: string;
}

const TIMESTAMPTZ = 1184;
const genericTimestamp = types.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => Date;
/**
 * timestamptz as the ISO 8601 string a StoredSubject carries. Connections run in UTC (inUtc), so the text is
 * `2024-01-02 03:04:05.678+00` and is rearranged by hand: the generic parser (to a Date, then back to
 * a string) cost more than the rest of a READ's row. Anything else takes the generic way.
 */
export function parseTimestamp(text: string): string {
  const match = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/.exec(text);
  if (match) return `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
  return genericTimestamp(text).toISOString();
}
/** The URL with `-c TimeZone=UTC` added to its startup options (after any it has, such as a search_path). */
function inUtc(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', [parsed.searchParams.get('options'), '-c TimeZone=UTC'].filter(Boolean).join(' '));
  return parsed.toString();
}

const typeParsers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ && format !== 'binary' ? parseTimestamp : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
};

const COLUMNS = 'id, attributes, version, created, modified';
const S_COLUMNS = 's.id, s.attributes, s.version, s.created, s.modified';
/** Rows per statement when importing: large enough to cost few round trips, small enough for one message. */
const IMPORT_BATCH = 500;
/** After an import this large the planner's statistics are refreshed at once, not when autovacuum gets to it. */
const ANALYZE_AFTER = 1_000;

const toSubject = (row: Row): StoredSubject => ({
  uniqueId: row.id,
  attributes: row.attributes,
  version: row.version,
  created: row.created,
  modified: row.modified,
});

/** The statements of every call, prepared once per connection (named). */
const STATEMENTS = {
  get: `SELECT ${COLUMNS} FROM subjects WHERE context = $1 AND id = $2`,
  exists: 'SELECT 1 FROM subjects WHERE context = $1 AND id = $2',
  byKey: `SELECT s.id, s.attributes, s.version, s.created, s.modified FROM subject_keys k
          JOIN subjects s ON s.context = k.context AND s.id = k.subject_id WHERE k.context = $1 AND k.key = $2`,
  count: 'SELECT count(*)::integer AS n FROM subjects WHERE context = $1',
  distinct: DISTINCT_VALUES_SQL,
  listFirst: `SELECT ${COLUMNS} FROM subjects WHERE context = $1 ORDER BY id LIMIT $2`,
  listAfter: `SELECT ${COLUMNS} FROM subjects WHERE context = $1 AND id > $2 ORDER BY id LIMIT $3`,
  remove: 'DELETE FROM subjects WHERE context = $1 AND id = $2',
} as const;

/** Statements on one connection (a transaction's), answering rows as the store's query does. */
const onClient =
  (client: PoolClient): Query =>
  async (text, values) =>
    (await client.query(text, values)).rows;

const named = (name: keyof typeof STATEMENTS, values: unknown[]): QueryConfig => ({ name: `svc_${name}`, text: STATEMENTS[name], values });

/** Errors of the connection rather than of a statement: the database is down, far or overloaded. */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P)/;
const UNAVAILABLE_SYSCALL = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);
const UNAVAILABLE_MESSAGE = /timeout|Connection terminated|connection/i;

/**
 * Subjects in PostgreSQL, shared by every core that names the same database and schema (SPEC
 * section 12). The database decides what must hold across cores: uniqueness (primary keys on the
 * subject and on each folded login name or unique value, never a read-then-write), If-Match (an
 * UPDATE conditioned on the row version, so of two racing writers exactly one matches), and each
 * write's subject, keys and search values change in one transaction. Every value travels as a
 * parameter; SQL text is built only from constants and the filter compiler's placeholders.
 */
export class PostgresSubjectStore implements SubjectStore {
  readonly kind = 'postgres';
  readonly events = new PostgresSubjectEvents((text, values) => this.query(text, values));
  /** SCIM's groups (SPEC 14), shared by every core on the schema. */
  readonly groups = new PostgresSubjectGroups(
    (text, values) => this.query(text, values),
    (body) => this.transaction((client) => body(onClient(client))),
  );
  private readonly pool: Pool;
  private readonly opener = openOnce(() => this.prepare());
  private closed = false;

  constructor(
    private readonly settings: PostgresSettings,
    private readonly options: { log?: Logger; now?: () => Date } = {},
  ) {
    this.pool = new Pool({
      connectionString: inUtc(settings.url),
      max: settings.poolSize,
      connectionTimeoutMillis: settings.connectTimeoutMs,
      statement_timeout: settings.statementTimeoutMs,
      // A backstop for a database that stops answering altogether (statement_timeout runs on its side).
      query_timeout: settings.statementTimeoutMs + 2_000,
      // A core that stalls inside a transaction must not hold row locks for long.
      idle_in_transaction_session_timeout: settings.statementTimeoutMs * 2,
      idleTimeoutMillis: 30_000,
      // Probes on an idle connection after 10 s, so that a vanished database is noticed.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      application_name: 'svc',
      types: typeParsers,
    });

    // An idle connection that breaks (the server restarted) is dropped by the pool; without a
    // listener the 'error' event would end the process.
    this.pool.on('error', (error) => this.options.log?.warn({ err: error.message, store: 'postgres' }, 'an idle PostgreSQL connection failed'));
  }

  /**
   * Checks the schema (`migrate: refuse`) or brings it up to date (`auto`) before the first call. The
   * core awaits it at start, so a schema this svc cannot use stops the process with the reason.
   * Errors are the database's own here (their message says what is wrong); calls translate them.
   */
  open(): Promise<void> {
    return this.opener();
  }

  private async prepare(): Promise<void> {
    if (this.settings.migrate === 'refuse') {
      const client = await this.pool.connect();
      try {
        await checkSchema(client);
      } finally {
        client.release();
      }
      return;
    }
    const applied = await this.migrate();
    if (applied.length) this.options.log?.info({ store: 'postgres', applied }, 'PostgreSQL schema migrated');
  }

  /**
   * `svc migrate` (and `migrate: auto`): applies pending migrations whatever `migrate` says, and
   * returns the versions applied. On a connection of its own, outside the pool's statement
   * timeouts: a migration on a large table, or waiting for another core's, may take longer.
   */
  async migrate(): Promise<number[]> {
    const client = new Client({ connectionString: inUtc(this.settings.url), connectionTimeoutMillis: this.settings.connectTimeoutMs, application_name: 'svc migrate' });
    await client.connect();
    try {
      return await migrateSchema(client);
    } finally {
      await client.end();
    }
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  private async query<R extends QueryResultRow>(query: QueryConfig | string, values?: unknown[]): Promise<R[]> {
    try {
      if (this.closed) throw new ServiceUnavailable('the subject store is closed');
      await this.open();
      const result = typeof query === 'string' ? await this.pool.query<R>(query, values) : await this.pool.query<R>(query);
      return result.rows;
    } catch (error) {
      throw this.translate(error);
    }
  }

  /** Runs `body` in one transaction on one connection: COMMIT when it returns, ROLLBACK when it throws. */
  private async transaction<T>(body: (client: PoolClient) => Promise<T>): Promise<T> {
    try {
      if (this.closed) throw new ServiceUnavailable('the subject store is closed');
      await this.open();
      const client = await this.pool.connect();
      let broken = false;
      // While a transaction holds the connection the pool's listener is off: an error between two
      // statements (the database vanished) would be an unhandled 'error' event and end the process.
      const onError = (error: Error) => {
        broken = true;
        this.options.log?.warn({ store: 'postgres', err: error.message }, 'a PostgreSQL connection in a transaction failed');
      };
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const result = await body(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        // A connection that failed (or went silent) is not asked to ROLLBACK: that would wait on it
        // for the whole query timeout. Closing it ends the transaction on the server just the same.
        if (broken || this.translate(error) instanceof ServiceUnavailable) broken = true;
        else
          await client.query('ROLLBACK').catch(() => {
            broken = true;
          });
        throw error;
      } finally {
        client.off('error', onError);
        // A connection whose ROLLBACK failed, or that failed itself, is in an unknown state: the pool closes it.
        client.release(broken);
      }
    } catch (error) {
      throw this.translate(error);
    }
  }

  /** Our own errors pass; the database's unavailability becomes 503; a uniqueness violation 409; anything else stays a 500. */
  private translate(error: unknown): unknown {
    if (error instanceof SvcError) return error;
    if (error instanceof SchemaVersionError) return this.unavailable('the subject store’s schema is not at this svc’s version', error);
    if (error instanceof DatabaseError) {
      if (error.code === '23505') return error.constraint === 'subjects_id_lc' ? keysTaken(['login:']) : new Conflict('a unique value is already taken');
      if (error.code === '57014') return this.unavailable('the subject store did not answer in time', error);
      if (UNAVAILABLE_SQLSTATE.test(error.code ?? '')) return this.unavailable('the subject store is unavailable', error);
      return error;
    }
    // Socket errors come from node's own realm (not always `instanceof Error` here): judged by their shape.
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    if (typeof message === 'string' && ((typeof code === 'string' && UNAVAILABLE_SYSCALL.has(code)) || UNAVAILABLE_MESSAGE.test(message))) {
      return this.unavailable('the subject store is unavailable', error as Error);
    }
    return error;
  }

  private unavailable(detail: string, cause: Error): ServiceUnavailable {
    this.options.log?.warn({ store: 'postgres', err: cause.message }, detail);
    return new ServiceUnavailable(detail, { headers: { 'Retry-After': '1' }, cause });
  }

  /**
   * Takes the write's uniqueness keys and search values for the subject, inside the caller's
   * transaction. A key another subject holds is not inserted (ON CONFLICT DO NOTHING waits for a
   * concurrent claimer to finish, then skips): whatever did not come back is taken.
   */
  private async claim(client: PoolClient, context: string, write: SubjectWrite, existed: boolean): Promise<void> {
    const keys = [...new Set(write.keys)];
    if (existed) await client.query('DELETE FROM subject_keys WHERE context = $1 AND subject_id = $2', [context, write.uniqueId]);
    const inserted = await client.query<{ key: string }>(
      'INSERT INTO subject_keys (context, key, subject_id) SELECT $1, k, $2 FROM unnest($3::text[]) AS k ON CONFLICT DO NOTHING RETURNING key',
      [context, write.uniqueId, keys],
    );
    if (inserted.rows.length !== keys.length) {
      const got = new Set(inserted.rows.map((row) => row.key));
      throw keysTaken(keys.filter((key) => !got.has(key)));
    }
    const names = write.indexed.map(([name]) => name);
    const values = write.indexed.map(([, value]) => value);
    const insertValues =
      'INSERT INTO subject_values (context, subject_id, name, value_lc, least) SELECT $1, $2, n, v, l FROM unnest($3::text[], $4::text[], $5::boolean[]) AS t(n, v, l)';
    await client.query(
      existed ? `WITH gone AS (DELETE FROM subject_values WHERE context = $1 AND subject_id = $2) ${insertValues}` : insertValues,
      [context, write.uniqueId, names, values, leastFlags(write.indexed)],
    );
  }

  async create(context: string, write: SubjectWrite): Promise<StoredSubject> {
    const at = this.now();
    return this.transaction(async (client) => {
      const inserted = await client.query<Row>(
        `INSERT INTO subjects (context, id, id_lc, attributes, version, created, modified) VALUES ($1, $2, $3, $4, 1, $5, $5)
         ON CONFLICT (context, id) DO NOTHING RETURNING ${COLUMNS}`,
        [context, write.uniqueId, write.uniqueId.toLowerCase(), JSON.stringify(write.attributes), at],
      );
      if (!inserted.rows.length) throw new Conflict(`subject ${write.uniqueId} exists`);
      await this.claim(client, context, write, false);
      return toSubject(inserted.rows[0]);
    });
  }

  async get(context: string, uniqueId: string): Promise<StoredSubject | undefined> {
    const [row] = await this.query<Row>(named('get', [context, uniqueId]));
    return row && toSubject(row);
  }

  async exists(context: string, uniqueId: string): Promise<boolean> {
    return (await this.query(named('exists', [context, uniqueId]))).length > 0;
  }

  async findByKey(context: string, key: string): Promise<StoredSubject | undefined> {
    const [row] = await this.query<Row>(named('byKey', [context, key]));
    return row && toSubject(row);
  }

  async update(context: string, write: SubjectWrite, expectedVersion?: number): Promise<StoredSubject> {
    const at = this.now();
    return this.transaction(async (client) => {
      // The row lock makes a racing writer wait; it then sees the new version and matches nothing.
      const updated = await client.query<Row>(
        `UPDATE subjects SET attributes = $3, version = version + 1, modified = $4
         WHERE context = $1 AND id = $2 AND ($5::integer IS NULL OR version = $5) RETURNING ${COLUMNS}`,
        [context, write.uniqueId, JSON.stringify(write.attributes), at, expectedVersion ?? null],
      );
      if (!updated.rows.length) {
        const found = await client.query(STATEMENTS.exists, [context, write.uniqueId]);
        throw found.rows.length ? new PreconditionFailed('the subject has changed') : new NotFound(`subject ${write.uniqueId} not found`);
      }
      await this.claim(client, context, write, true);
      return toSubject(updated.rows[0]);
    });
  }

  async delete(context: string, uniqueId: string): Promise<boolean> {
    try {
      await this.open();
      // Keys and values go with the subject (ON DELETE CASCADE), in the same statement.
      const result = await this.pool.query(named('remove', [context, uniqueId]));
      return (result.rowCount ?? 0) > 0;
    } catch (error) {
      throw this.translate(error);
    }
  }

  /** The total and the page in one statement, so both come from one snapshot in one round trip. */
  async search(context: string, query: SearchQuery): Promise<SearchPage> {
    const params: unknown[] = [context];
    let where = 's.context = $1';
    if (query.filter) where += ` AND (${filterToSql(query.filter, 'postgres', params, context)})`;
    if (query.text) {
      const [low, high] = prefixRange(query.text.prefix);
      const at = params.push(context, query.text.attributes, low, high);
      // Driven by the subject_values_lookup index: a prefix range per search attribute.
      where += ` AND s.id IN (SELECT v.subject_id FROM subject_values v WHERE v.context = $${at - 3}
                 AND v.name = ANY($${at - 2}::text[]) AND v.value_lc >= $${at - 1} AND v.value_lc < $${at})`;
    }
    const sort = query.sort;
    if (sort && sort.attribute !== 'uniqueId') return this.sortedSearch(where, params, sort, query);
    const direction = sort?.descending ? 'DESC' : 'ASC';
    const limit = params.push(query.quantity);
    const offset = params.push(query.offset);
    const rows = await this.query<{ total: number } & { [K in keyof Row]: Row[K] | null }>(
      `SELECT t.total, p.id, p.attributes, p.version, p.created, p.modified
       FROM (SELECT count(*)::integer AS total FROM subjects s WHERE ${where}) t
       LEFT JOIN LATERAL (SELECT ${COLUMNS} FROM subjects s WHERE ${where} ORDER BY s.id ${direction} LIMIT $${limit} OFFSET $${offset}) p ON true`,
      params,
    );
    const results = rows.filter((row): row is { total: number } & Row => row.id !== null).map(toSubject);
    return { results, total: rows[0]?.total ?? 0 };
  }

  /**
   * A search sorted by an attribute: its two parts, each in an index's order (subject_values_sort for
   * the subjects with a value, the primary key for those without), and the counts, read in one
   * repeatable-read transaction so that they agree.
   */
  private async sortedSearch(where: string, params: unknown[], sort: SearchSort, query: SearchQuery): Promise<SearchPage> {
    const direction = sort.descending ? 'DESC' : 'ASC';
    const filtered = [...params];
    const narrowed = query.filter !== undefined || query.text !== undefined;
    const name = params.push(sort.attribute);
    const withValue = `FROM subject_values k JOIN subjects s ON s.context = k.context AND s.id = k.subject_id WHERE k.context = $1 AND k.name = $${name} AND k.least AND ${where}`;
    const marked = `SELECT 1 FROM subject_values k WHERE k.context = s.context AND k.subject_id = s.id AND k.name = $${name} AND k.least`;
    const page = (sql: string) => `${sql} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`;
    return this.transaction(async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      const count = async (sql: string, values = params) => (await client.query<{ n: number }>(sql, values)).rows[0].n;
      const rows = async (sql: string, offset: number, limit: number) => (await client.query<Row>(page(sql), [...params, limit, offset])).rows;
      const total = await count(`SELECT count(*)::integer AS n FROM subjects s WHERE ${where}`, filtered);
      const results = await sortedPage(
        {
          withValue: (offset, limit) => rows(`SELECT ${S_COLUMNS} ${withValue} ORDER BY k.value_lc ${direction}, k.subject_id ${direction}`, offset, limit),
          withoutValue: (offset, limit) => rows(`SELECT ${S_COLUMNS} FROM subjects s WHERE ${where} AND NOT EXISTS (${marked}) ORDER BY s.id ${direction}`, offset, limit),
          // Without a filter or free text, the partial index alone counts them (no join to subjects).
          countWithValue: () =>
            narrowed ? count(`SELECT count(*)::integer AS n ${withValue}`) : count(`SELECT count(*)::integer AS n FROM subject_values k WHERE k.context = $1 AND k.name = $2 AND k.least`, [filtered[0], sort.attribute]),
        },
        sort.descending,
        total,
        query.offset,
        query.quantity,
      );
      return { results: results.map(toSubject), total };
    });
  }

  async list(context: string, after: string | undefined, limit: number): Promise<StoredSubject[]> {
    const rows = await this.query<Row>(after === undefined ? named('listFirst', [context, limit]) : named('listAfter', [context, after, limit]));
    return rows.map(toSubject);
  }

  async importSubjects(context: string, subjects: ImportedSubject[], options: ImportOptions): Promise<void> {
    await this.transaction(async (client) => {
      for (let start = 0; start < subjects.length; start += IMPORT_BATCH) {
        await this.importBatch(client, context, subjects.slice(start, start + IMPORT_BATCH), options.replace);
        options.onProgress?.(Math.min(subjects.length, start + IMPORT_BATCH));
      }
      // Last: the groups' lock is held only until the commit.
      await importPostgresGroups(onClient(client), context, options.groups ?? [], options.replace);
    });
    if (subjects.length >= ANALYZE_AFTER) await this.query('ANALYZE subjects, subject_keys, subject_values');
  }

  /** One batch of an import: a few statements over arrays, whatever the batch's size. */
  private async importBatch(client: PoolClient, context: string, batch: ImportedSubject[], replace: boolean): Promise<void> {
    const ids = batch.map((s) => s.write.uniqueId);
    const found = await client.query<{ id: string }>('SELECT id FROM subjects WHERE context = $1 AND id_lc = ANY($2::text[])', [
      context,
      ids.map((id) => id.toLowerCase()),
    ]);
    const exact = new Set(found.rows.map((row) => row.id));
    const folded = new Set(found.rows.map((row) => row.id.toLowerCase()));
    for (const id of ids) {
      if (exact.has(id) && !replace) throw importConflict(id, new Conflict(`subject ${id} exists`));
      if (!exact.has(id) && folded.has(id.toLowerCase())) throw importConflict(id, keysTaken([`login:${id.toLowerCase()}`]));
    }
    const fresh = batch.filter((s) => !exact.has(s.write.uniqueId));
    const replaced = batch.filter((s) => exact.has(s.write.uniqueId));
    const columns = (list: ImportedSubject[]) => [
      list.map((s) => s.write.uniqueId),
      list.map((s) => JSON.stringify(s.write.attributes)),
      list.map((s) => s.created),
      list.map((s) => s.modified),
    ];
    if (fresh.length) {
      await client.query(
        `INSERT INTO subjects (context, id, id_lc, attributes, version, created, modified)
         SELECT $1, t.id, lower(t.id), t.a::jsonb, 1, t.c, t.m FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[]) AS t(id, a, c, m)`,
        [context, ...columns(fresh)],
      );
    }
    if (replaced.length) {
      const [replacedIds, ...rest] = columns(replaced);
      await client.query(
        `UPDATE subjects s SET attributes = t.a::jsonb, version = s.version + 1, created = t.c, modified = t.m
         FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[]) AS t(id, a, c, m) WHERE s.context = $1 AND s.id = t.id`,
        [context, replacedIds, ...rest],
      );
      await client.query('DELETE FROM subject_keys WHERE context = $1 AND subject_id = ANY($2::text[])', [context, replacedIds]);
      await client.query('DELETE FROM subject_values WHERE context = $1 AND subject_id = ANY($2::text[])', [context, replacedIds]);
    }
    const keyPairs = batch.flatMap((s) => [...new Set(s.write.keys)].map((key) => [key, s.write.uniqueId] as const));
    const inserted = await client.query<{ key: string; subject_id: string }>(
      `INSERT INTO subject_keys (context, key, subject_id) SELECT $1, t.k, t.id FROM unnest($2::text[], $3::text[]) AS t(k, id)
       ON CONFLICT DO NOTHING RETURNING key, subject_id`,
      [context, keyPairs.map(([key]) => key), keyPairs.map(([, id]) => id)],
    );
    if (inserted.rows.length !== keyPairs.length) {
      const got = new Set(inserted.rows.map((row) => `${row.subject_id}\u0000${row.key}`));
      const missing = keyPairs.filter(([key, id]) => !got.has(`${id}\u0000${key}`));
      const blamed = missing[0][1];
      throw importConflict(blamed, keysTaken(missing.filter(([, id]) => id === blamed).map(([key]) => key)));
    }
    const values = batch.flatMap((s) => {
      const least = leastFlags(s.write.indexed);
      return s.write.indexed.map(([name, value], i) => [s.write.uniqueId, name, value, least[i]] as const);
    });
    await client.query(
      'INSERT INTO subject_values (context, subject_id, name, value_lc, least) SELECT $1, t.id, t.n, t.v, t.l FROM unnest($2::text[], $3::text[], $4::text[], $5::boolean[]) AS t(id, n, v, l)',
      [context, values.map(([id]) => id), values.map(([, name]) => name), values.map(([, , value]) => value), values.map(([, , , least]) => least)],
    );
  }

  async distinctValues(context: string, attribute: string): Promise<string[]> {
    return (await this.query<{ v: string }>(named('distinct', [context, attribute]))).map((row) => row.v);
  }

  async count(context: string): Promise<number> {
    const [row] = await this.query<{ n: number }>(named('count', [context]));
    return row.n;
  }

  /** Whether PostgreSQL answers now (for /ready); it does not wait for the schema check. */
  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

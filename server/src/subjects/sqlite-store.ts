import Database from 'better-sqlite3';
import { Conflict, NotFound, PreconditionFailed } from '../../../common/src/errors';
import { SqliteStatements } from '../sqlite-statements';
import { DISTINCT_VALUES_SQL, filterToSql, prefixRange } from './filter/to-sql';
import { SQLITE_EVENTS_MIGRATION, SqliteSubjectEvents } from './sqlite-events';
import { SQLITE_GROUPS_MIGRATION, SqliteSubjectGroups } from './subject-groups';
import { leastFlags, sortedPage } from './sort';
import { importConflict, keysTaken, type ImportedSubject, type ImportOptions, type SearchPage, type SearchQuery, type SubjectStore, type SubjectWrite } from './store';
import type { StoredSubject } from './subject';

/** Each entry migrates the schema from version i to i+1; applied in order at open. */
const MIGRATIONS: string[] = [
  `CREATE TABLE subjects (context TEXT NOT NULL, id TEXT NOT NULL, id_lc TEXT NOT NULL, attributes TEXT NOT NULL,
     version INTEGER NOT NULL, created TEXT NOT NULL, modified TEXT NOT NULL, PRIMARY KEY (context, id)) WITHOUT ROWID;
   CREATE TABLE subject_values (context TEXT NOT NULL, subject_id TEXT NOT NULL, name TEXT NOT NULL, value_lc TEXT NOT NULL);
   CREATE INDEX subject_values_lookup ON subject_values (context, name, value_lc);
   CREATE INDEX subject_values_owner ON subject_values (context, subject_id);
   CREATE TABLE subject_keys (context TEXT NOT NULL, key TEXT NOT NULL, subject_id TEXT NOT NULL, PRIMARY KEY (context, key)) WITHOUT ROWID;
   CREATE INDEX subject_keys_owner ON subject_keys (context, subject_id);`,
  // Filters on uniqueId compare the folded id.
  `CREATE INDEX subjects_id_lc ON subjects (context, id_lc);`,
  // A sorted SEARCH (sort/order): each subject's least value of an attribute is marked; the marked
  // rows' indexes give the order without a sort of all matches (_sort), and a subject's key (_key).
  `ALTER TABLE subject_values ADD COLUMN least INTEGER NOT NULL DEFAULT 0;
   UPDATE subject_values SET least = 1 WHERE rowid IN (SELECT r FROM (SELECT rowid AS r,
     row_number() OVER (PARTITION BY context, subject_id, name ORDER BY value_lc) AS n FROM subject_values) WHERE n = 1);
   CREATE INDEX subject_values_sort ON subject_values (context, name, value_lc, subject_id) WHERE least = 1;
   CREATE INDEX subject_values_key ON subject_values (context, subject_id, name, value_lc) WHERE least = 1;`,
  // Subject events (SPEC 10.4).
  SQLITE_EVENTS_MIGRATION,
  // SCIM's groups (SPEC 14).
  SQLITE_GROUPS_MIGRATION,
];

const COLUMNS = 's.id, s.attributes, s.version, s.created, s.modified';

interface Row {
  id: string;
  attributes: string;
  version: number;
  created: string;
  modified: string;
}

const toSubject = (row: Row): StoredSubject => ({
  uniqueId: row.id,
  attributes: JSON.parse(row.attributes),
  version: row.version,
  created: row.created,
  modified: row.modified,
});

/** Opens `file` for this process alone, or says plainly that another process has it. */
function openExclusively(file: string): Database.Database {
  // A process being replaced may hold the file a moment longer: wait up to 2 s for it.
  const db = new Database(file, { timeout: 2000 });
  try {
    // One process owns the file (its roles cache and uniqueness checks assume no other writer), so
    // the lock is taken once and held: SQLite then keeps the WAL index in memory and a read costs no
    // lock system calls (a third of the time of a read that does).
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new Error(`${file} is in use by another process: a SQLite subject store belongs to one svc process (several instances need a shared store)`);
    }
    throw error;
  }
  return db;
}

/** SEARCH statements kept prepared: more than the shapes the portlets and IdPs send, bounded against a client sending new ones. */
const SEARCH_STATEMENTS = 256;

/** The default store: one SQLite file in the data directory, WAL journal, schema-versioned, owned by one process. */
export class SqliteSubjectStore implements SubjectStore {
  readonly kind = 'sqlite';
  private readonly db: Database.Database;
  private readonly statements;
  /** A SEARCH's statements, by the shape of its filter, free text and sort. */
  private readonly searches: SqliteStatements;
  readonly events: SqliteSubjectEvents;
  readonly groups: SqliteSubjectGroups;

  constructor(readonly file: string, private readonly now: () => Date = () => new Date()) {
    this.db = openExclusively(file);
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.migrate();
    const db = this.db;
    this.events = new SqliteSubjectEvents(db);
    this.groups = new SqliteSubjectGroups(db, now);
    this.searches = new SqliteStatements(db, SEARCH_STATEMENTS);
    this.statements = {
      get: db.prepare<[string, string], Row>('SELECT id, attributes, version, created, modified FROM subjects WHERE context = ? AND id = ?'),
      exists: db.prepare<[string, string], number>('SELECT 1 FROM subjects WHERE context = ? AND id = ?').pluck(),
      byKey: db.prepare<[string, string], Row>(
        'SELECT s.id, s.attributes, s.version, s.created, s.modified FROM subject_keys k JOIN subjects s ON s.context = k.context AND s.id = k.subject_id WHERE k.context = ? AND k.key = ?',
      ),
      insert: db.prepare('INSERT INTO subjects (context, id, id_lc, attributes, version, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      update: db.prepare('UPDATE subjects SET attributes = ?, version = version + 1, modified = ? WHERE context = ? AND id = ?'),
      replace: db.prepare('UPDATE subjects SET attributes = ?, version = version + 1, created = ?, modified = ? WHERE context = ? AND id = ?'),
      listFirst: db.prepare<[string, number], Row>('SELECT id, attributes, version, created, modified FROM subjects WHERE context = ? ORDER BY id LIMIT ?'),
      listAfter: db.prepare<[string, string, number], Row>(
        'SELECT id, attributes, version, created, modified FROM subjects WHERE context = ? AND id > ? ORDER BY id LIMIT ?',
      ),
      remove: db.prepare('DELETE FROM subjects WHERE context = ? AND id = ?'),
      insertKey: db.prepare('INSERT INTO subject_keys (context, key, subject_id) VALUES (?, ?, ?)'),
      keyOwner: db.prepare<[string, string], { subject_id: string }>('SELECT subject_id FROM subject_keys WHERE context = ? AND key = ?'),
      removeKeys: db.prepare('DELETE FROM subject_keys WHERE context = ? AND subject_id = ?'),
      insertValue: db.prepare('INSERT INTO subject_values (context, subject_id, name, value_lc, least) VALUES (?, ?, ?, ?, ?)'),
      removeValues: db.prepare('DELETE FROM subject_values WHERE context = ? AND subject_id = ?'),
      count: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM subjects WHERE context = ?'),
      distinct: db.prepare<[{ context: string; name: string }], string>(DISTINCT_VALUES_SQL.replaceAll('$1', '@context').replaceAll('$2', '@name')).pluck(),
    };
  }

  private migrate(): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
    const row = this.db.prepare<[], { version: number }>('SELECT version FROM schema_version').get();
    let version = row?.version ?? 0;
    if (!row) this.db.prepare('INSERT INTO schema_version (version) VALUES (0)').run();
    if (version > MIGRATIONS.length) {
      throw new Error(`${this.file} has schema version ${version}, newer than this svc (${MIGRATIONS.length})`);
    }
    for (; version < MIGRATIONS.length; version++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[version]);
        this.db.prepare('UPDATE schema_version SET version = ?').run(version + 1);
      })();
    }
  }

  private claim(context: string, write: SubjectWrite): void {
    const taken = write.keys.filter((key) => {
      const owner = this.statements.keyOwner.get(context, key);
      return owner !== undefined && owner.subject_id !== write.uniqueId;
    });
    if (taken.length) throw keysTaken(taken);
    this.statements.removeKeys.run(context, write.uniqueId);
    for (const key of new Set(write.keys)) this.statements.insertKey.run(context, key, write.uniqueId);
    this.statements.removeValues.run(context, write.uniqueId);
    const least = leastFlags(write.indexed);
    write.indexed.forEach(([name, value], i) => this.statements.insertValue.run(context, write.uniqueId, name, value, least[i] ? 1 : 0));
  }

  async create(context: string, write: SubjectWrite): Promise<StoredSubject> {
    const at = this.now().toISOString();
    this.db.transaction(() => {
      if (this.statements.get.get(context, write.uniqueId)) throw new Conflict(`subject ${write.uniqueId} exists`);
      this.statements.insert.run(context, write.uniqueId, write.uniqueId.toLowerCase(), JSON.stringify(write.attributes), 1, at, at);
      this.claim(context, write);
    })();
    return { uniqueId: write.uniqueId, attributes: write.attributes, version: 1, created: at, modified: at };
  }

  async get(context: string, uniqueId: string): Promise<StoredSubject | undefined> {
    const row = this.statements.get.get(context, uniqueId);
    return row && toSubject(row);
  }

  async exists(context: string, uniqueId: string): Promise<boolean> {
    return this.statements.exists.get(context, uniqueId) !== undefined;
  }

  async findByKey(context: string, key: string): Promise<StoredSubject | undefined> {
    const row = this.statements.byKey.get(context, key);
    return row && toSubject(row);
  }

  async update(context: string, write: SubjectWrite, expectedVersion?: number): Promise<StoredSubject> {
    return this.db.transaction(() => {
      const current = this.statements.get.get(context, write.uniqueId);
      if (!current) throw new NotFound(`subject ${write.uniqueId} not found`);
      if (expectedVersion !== undefined && current.version !== expectedVersion) throw new PreconditionFailed('the subject has changed');
      this.statements.update.run(JSON.stringify(write.attributes), this.now().toISOString(), context, write.uniqueId);
      this.claim(context, write);
      return toSubject(this.statements.get.get(context, write.uniqueId)!);
    })();
  }

  async delete(context: string, uniqueId: string): Promise<boolean> {
    return this.db.transaction(() => {
      const removed = this.statements.remove.run(context, uniqueId).changes > 0;
      this.statements.removeKeys.run(context, uniqueId);
      this.statements.removeValues.run(context, uniqueId);
      return removed;
    })();
  }

  async search(context: string, query: SearchQuery): Promise<SearchPage> {
    const params: unknown[] = [context];
    let where = 's.context = ?';
    if (query.filter) where += ` AND (${filterToSql(query.filter, 'sqlite', params, context)})`;
    if (query.text) {
      const [low, high] = prefixRange(query.text.prefix);
      // Driven by the subject_values index: a prefix range per search attribute.
      where += ` AND s.id IN (SELECT v.subject_id FROM subject_values v WHERE v.context = ? AND v.name IN (${query.text.attributes
        .map(() => '?')
        .join(', ')}) AND v.value_lc >= ? AND v.value_lc < ?)`;
      params.push(context, ...query.text.attributes, low, high);
    }
    const total = this.searches.of<unknown[], { n: number }>(`SELECT count(*) AS n FROM subjects s WHERE ${where}`).get(...params)!.n;
    const rows = (sql: string, ...more: unknown[]) => this.searches.of<unknown[], Row>(sql).all(...params, ...more);
    const sort = query.sort;
    const direction = sort?.descending ? 'DESC' : 'ASC';
    if (!sort || sort.attribute === 'uniqueId') {
      return { results: rows(`SELECT ${COLUMNS} FROM subjects s WHERE ${where} ORDER BY s.id ${direction} LIMIT ? OFFSET ?`, query.quantity, query.offset).map(toSubject), total };
    }
    // Without a filter or free text, an index gives each part in order (subject_values_sort for those
    // with a value, the primary key for those without) and a page reads only its rows. With them, the
    // matches are found first (CROSS JOIN keeps subjects the outer loop) and only they are sorted.
    const narrowed = query.filter !== undefined || query.text !== undefined;
    const marked = `SELECT 1 FROM subject_values k WHERE k.context = s.context AND k.subject_id = s.id AND k.name = ? AND k.least = 1`;
    const withValue = narrowed
      ? `FROM subjects s CROSS JOIN subject_values k ON k.context = s.context AND k.subject_id = s.id WHERE k.name = ? AND k.least = 1 AND ${where}`
      : `FROM subject_values k JOIN subjects s ON s.context = k.context AND s.id = k.subject_id WHERE k.name = ? AND k.least = 1 AND k.context = s.context AND ${where}`;
    const countWithValue = narrowed ? `SELECT count(*) AS n ${withValue}` : 'SELECT count(*) AS n FROM subject_values k WHERE k.name = ? AND k.least = 1 AND k.context = ?';
    const page = await sortedPage(
      {
        withValue: async (offset, limit) => this.searches.of<unknown[], Row>(`SELECT ${COLUMNS} ${withValue} ORDER BY k.value_lc ${direction}, k.subject_id ${direction} LIMIT ? OFFSET ?`).all(sort.attribute, ...params, limit, offset),
        withoutValue: async (offset, limit) => rows(`SELECT ${COLUMNS} FROM subjects s WHERE ${where} AND NOT EXISTS (${marked}) ORDER BY s.id ${direction} LIMIT ? OFFSET ?`, sort.attribute, limit, offset),
        countWithValue: async () => this.searches.of<unknown[], { n: number }>(countWithValue).get(sort.attribute, ...(narrowed ? params : [context]))!.n,
      },
      sort.descending,
      total,
      query.offset,
      query.quantity,
    );
    return { results: page.map(toSubject), total };
  }

  async distinctValues(context: string, attribute: string): Promise<string[]> {
    return this.statements.distinct.all({ context, name: attribute });
  }

  async count(context: string): Promise<number> {
    return this.statements.count.get(context)!.n;
  }

  async ping(): Promise<boolean> {
    return this.db.open && this.db.prepare('SELECT 1').get() !== undefined;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  async list(context: string, after: string | undefined, limit: number): Promise<StoredSubject[]> {
    const rows = after === undefined ? this.statements.listFirst.all(context, limit) : this.statements.listAfter.all(context, after, limit);
    return rows.map(toSubject);
  }

  async importSubjects(context: string, subjects: ImportedSubject[], options: ImportOptions): Promise<void> {
    this.db.transaction(() => {
      subjects.forEach(({ write, created, modified }, i) => {
        const attributes = JSON.stringify(write.attributes);
        try {
          if (this.statements.exists.get(context, write.uniqueId) === undefined) {
            this.statements.insert.run(context, write.uniqueId, write.uniqueId.toLowerCase(), attributes, 1, created, modified);
          } else if (options.replace) {
            this.statements.replace.run(attributes, created, modified, context, write.uniqueId);
          } else {
            throw new Conflict(`subject ${write.uniqueId} exists`);
          }
          this.claim(context, write);
        } catch (error) {
          throw importConflict(write.uniqueId, error);
        }
        if ((i + 1) % 1000 === 0) options.onProgress?.(i + 1);
      });
      this.groups.importNow(context, options.groups ?? [], options.replace);
    })();
    options.onProgress?.(subjects.length);
  }
}

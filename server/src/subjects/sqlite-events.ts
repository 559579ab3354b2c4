import type Database from 'better-sqlite3';
import type { SubjectEventPage, SubjectEvent, SubjectEvents } from './subject-events';

/** The table the SQLite store's migration 4 creates: rowids grow with each event, so newest first is id DESC. */
export const SQLITE_EVENTS_MIGRATION = `CREATE TABLE subject_events (id INTEGER PRIMARY KEY AUTOINCREMENT, context TEXT NOT NULL,
     subject_id TEXT NOT NULL, at TEXT NOT NULL, type TEXT NOT NULL, client TEXT, principal TEXT, peer TEXT, detail TEXT NOT NULL);
   CREATE INDEX subject_events_subject ON subject_events (context, subject_id, id);
   CREATE INDEX subject_events_at ON subject_events (at);`;

/** Subject events in a SQLite file (SPEC 10.4): the SQLite store's `svc.db`, or `events.sqlite` of an LDAP store (events-file.ts). */
export class SqliteSubjectEvents implements SubjectEvents {
  private readonly statements;

  constructor(private readonly db: Database.Database) {
    this.statements = {
      insert: db.prepare('INSERT INTO subject_events (context, subject_id, at, type, client, principal, peer, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      page: db.prepare<[string, string, number, number], SubjectEvent>(
        'SELECT at, type, client, principal, peer, detail FROM subject_events WHERE context = ? AND subject_id = ? ORDER BY id DESC LIMIT ? OFFSET ?',
      ),
      count: db.prepare<[string, string], number>('SELECT count(*) FROM subject_events WHERE context = ? AND subject_id = ?').pluck(),
      forget: db.prepare('DELETE FROM subject_events WHERE context = ? AND subject_id = ?'),
      old: db.prepare('DELETE FROM subject_events WHERE at < ?'),
      beyond: db.prepare(
        'DELETE FROM subject_events WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY context, subject_id ORDER BY id DESC) AS n FROM subject_events) WHERE n > ?)',
      ),
    };
  }

  async append(context: string, uniqueId: string, e: SubjectEvent): Promise<void> {
    this.statements.insert.run(context, uniqueId, e.at, e.type, e.client, e.principal, e.peer, e.detail);
  }

  async list(context: string, uniqueId: string, offset: number, quantity: number): Promise<SubjectEventPage> {
    return { events: this.statements.page.all(context, uniqueId, quantity, offset).map((row) => ({ ...row })), total: this.statements.count.get(context, uniqueId)! };
  }

  async prune(before: string, keep: number): Promise<number> {
    return this.db.transaction(() => this.statements.old.run(before).changes + this.statements.beyond.run(keep).changes)();
  }

  async forget(context: string, uniqueId: string): Promise<number> {
    return this.statements.forget.run(context, uniqueId).changes;
  }
}

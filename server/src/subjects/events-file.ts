/**
 * Subject events (SPEC 10.4) of a store that has no place for them: an LDAP directory's schema holds
 * no audit trail, so an LDAP context's events are kept in svc's own SQLite file, `events.sqlite` in
 * the data directory (side-file.ts), keyed by context and subject: the SQLite store's events table and
 * statements (sqlite-events.ts) in a file of their own, shared by the core's LDAP contexts.
 */
import { SqliteSideFile } from './side-file';
import { SQLITE_EVENTS_MIGRATION, SqliteSubjectEvents } from './sqlite-events';
import type { SubjectEventPage, SubjectEvent, SubjectEvents } from './subject-events';

export class SubjectEventsFile implements SubjectEvents {
  private readonly side: SqliteSideFile<SqliteSubjectEvents>;

  constructor(readonly file: string) {
    this.side = new SqliteSideFile(file, SQLITE_EVENTS_MIGRATION, (db) => new SqliteSubjectEvents(db));
  }

  async append(context: string, uniqueId: string, event: SubjectEvent): Promise<void> {
    return this.side.content().append(context, uniqueId, event);
  }

  async list(context: string, uniqueId: string, offset: number, quantity: number): Promise<SubjectEventPage> {
    return this.side.content().list(context, uniqueId, offset, quantity);
  }

  async prune(before: string, keep: number): Promise<number> {
    return this.side.content().prune(before, keep);
  }

  async forget(context: string, uniqueId: string): Promise<number> {
    return this.side.content().forget(context, uniqueId);
  }

  close(): void {
    this.side.close();
  }
}

/**
 * Subject events (SPEC 10.4) of a store that has no place for them: an LDAP directory's schema holds
 * no audit trail, so, as second factors are (SPEC 15, otp/factor-store.ts), an LDAP context's events
 * are kept in svc's own SQLite file, `events.sqlite` in the data directory, keyed by context and
 * subject: the SQLite store's events table and statements (sqlite-events.ts) in a file of their own.
 * Opened at first use (so `svc export`/`import` never open it), once per core, shared by that core's
 * LDAP contexts. Not opened exclusively (WAL, a 2 s busy timeout, like otp.sqlite): the workers of
 * `--workers N`, and cores that share their data directory, share the file.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SQLITE_EVENTS_MIGRATION, SqliteSubjectEvents } from './sqlite-events';
import type { SubjectEventPage, SubjectEvent, SubjectEvents } from './subject-events';

/** `PRAGMA user_version` of a file that holds the events table. */
const VERSION = 1;

export class SubjectEventsFile implements SubjectEvents {
  private opened?: { db: Database.Database; events: SqliteSubjectEvents };

  constructor(readonly file: string) {}

  /** Opens the file at first use; a failure is the caller's rejection (an event is then logged and dropped). */
  private events(): SqliteSubjectEvents {
    if (this.opened) return this.opened.events;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const db = new Database(this.file, { timeout: 2000 });
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // Several processes may open a new file at once: one creates the table, the others see it made.
      db.transaction(() => {
        const version = db.pragma('user_version', { simple: true }) as number;
        if (version > VERSION) throw new Error(`${this.file} was written by a newer svc (version ${version}; this svc knows ${VERSION})`);
        if (version < VERSION) {
          db.exec(SQLITE_EVENTS_MIGRATION);
          db.pragma(`user_version = ${VERSION}`);
        }
      }).immediate();
    } catch (error) {
      db.close();
      throw error;
    }
    this.opened = { db, events: new SqliteSubjectEvents(db) };
    return this.opened.events;
  }

  async append(context: string, uniqueId: string, event: SubjectEvent): Promise<void> {
    return this.events().append(context, uniqueId, event);
  }

  async list(context: string, uniqueId: string, offset: number, quantity: number): Promise<SubjectEventPage> {
    return this.events().list(context, uniqueId, offset, quantity);
  }

  async prune(before: string, keep: number): Promise<number> {
    return this.events().prune(before, keep);
  }

  async forget(context: string, uniqueId: string): Promise<number> {
    return this.events().forget(context, uniqueId);
  }

  close(): void {
    this.opened?.db.close();
    this.opened = undefined;
  }
}

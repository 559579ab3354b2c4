/**
 * SCIM's groups of an `ldap` store's contexts (SPEC 14): the directory holds subjects, not svc's
 * group ids, so, as its subject events are (events-file.ts) and second factors (otp.sqlite), they are
 * kept in svc's own SQLite file, `groups.sqlite` in the data directory: the SQLite store's table and
 * statements (subject-groups.ts) in a file of their own. Opened at first use, once per core, shared by
 * that core's LDAP contexts; not exclusively (WAL, a 2 s busy timeout): `--workers N`, and cores that
 * share their data directory, share the file. Cores with data directories of their own keep ids of
 * their own (docs/operations.md).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SQLITE_GROUPS_MIGRATION, SqliteSubjectGroups, type StoredGroup, type SubjectGroups } from './subject-groups';

/** `PRAGMA user_version` of a file that holds the groups table. */
const VERSION = 1;

export class SubjectGroupsFile implements SubjectGroups {
  private opened?: { db: Database.Database; groups: SqliteSubjectGroups };

  constructor(readonly file: string) {}

  /** Opens the file at first use. */
  private groups(): SqliteSubjectGroups {
    if (this.opened) return this.opened.groups;
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
          db.exec(SQLITE_GROUPS_MIGRATION);
          db.pragma(`user_version = ${VERSION}`);
        }
      }).immediate();
    } catch (error) {
      db.close();
      throw error;
    }
    this.opened = { db, groups: new SqliteSubjectGroups(db) };
    return this.opened.groups;
  }

  list(context: string): Promise<StoredGroup[]> {
    return this.groups().list(context);
  }

  get(context: string, id: string): Promise<StoredGroup | undefined> {
    return this.groups().get(context, id);
  }

  byNames(context: string, names: readonly string[]): Promise<StoredGroup[]> {
    return this.groups().byNames(context, names);
  }

  ensure(context: string, names: readonly string[]): Promise<void> {
    return this.groups().ensure(context, names);
  }

  create(context: string, name: string): Promise<StoredGroup> {
    return this.groups().create(context, name);
  }

  update(context: string, group: StoredGroup, name: string): Promise<boolean> {
    return this.groups().update(context, group, name);
  }

  delete(context: string, id: string): Promise<boolean> {
    return this.groups().delete(context, id);
  }

  close(): void {
    this.opened?.db.close();
    this.opened = undefined;
  }
}

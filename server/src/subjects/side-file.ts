/**
 * svc's own SQLite file beside a store that has no place for some of svc's data (an LDAP directory:
 * its subjects' events, events-file.ts, and SCIM's groups, groups-file.ts), as second factors are kept
 * (SPEC 15, otp.sqlite). Opened at first use, once per core (reads may ask for it only when it
 * exists: `svc export` of an `ldap` context reads groups.sqlite without making one);
 * not exclusively (WAL, a 2 s busy timeout): the workers of `--workers N`, and cores that share their
 * data directory, share the file. Its one table is made by `migration`, version 1 in
 * `PRAGMA user_version`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** `PRAGMA user_version` of a file whose table the migration made. */
const VERSION = 1;

export class SqliteSideFile<T> {
  private opened?: { db: Database.Database; content: T };

  constructor(
    readonly file: string,
    private readonly migration: string,
    private readonly wrap: (db: Database.Database) => T,
  ) {}

  /** The file's content when the file exists (opened at first use), else undefined: nothing made for a read. */
  existing(): T | undefined {
    return this.opened || existsSync(this.file) ? this.content() : undefined;
  }

  /** The file's content, opening (or making) it at first use; a failure is the caller's rejection. */
  content(): T {
    if (this.opened) return this.opened.content;
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
          db.exec(this.migration);
          db.pragma(`user_version = ${VERSION}`);
        }
      }).immediate();
    } catch (error) {
      db.close();
      throw error;
    }
    this.opened = { db, content: this.wrap(db) };
    return this.opened.content;
  }

  close(): void {
    this.opened?.db.close();
    this.opened = undefined;
  }
}

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { PreferencesKey } from '../services';

type Values = (string | null)[];

/** Each entry migrates the schema from version i to i+1 (`PRAGMA user_version`); applied in order at open. */
const MIGRATIONS = [
  `CREATE TABLE preferences (owner TEXT NOT NULL, page TEXT NOT NULL, window TEXT NOT NULL, portlet TEXT NOT NULL,
     data TEXT NOT NULL, updated INTEGER NOT NULL, PRIMARY KEY (owner, page, window)) WITHOUT ROWID;`,
];

/**
 * The portal users' preferences in the portal's own SQLite file (`dataDir/portal.db`), one row per
 * (portal user, page, window) holding the values that differ from the defaults. A row is written
 * whole in one statement, so `store()` is atomic.
 */
export class SqlitePreferencesStore {
  readonly #db: Database.Database;
  readonly #get;
  readonly #put;
  readonly #delete;

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.#db = new Database(file, { timeout: 2000 });
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = NORMAL');
    const version = this.#db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) throw new Error(`${file} has schema version ${version}, newer than this portal knows (${MIGRATIONS.length})`);
    this.#db.transaction(() => {
      for (let v = version; v < MIGRATIONS.length; v++) this.#db.exec(MIGRATIONS[v]);
      this.#db.pragma(`user_version = ${MIGRATIONS.length}`);
    })();
    this.#get = this.#db.prepare<[string, string, string], { portlet: string; data: string }>('SELECT portlet, data FROM preferences WHERE owner = ? AND page = ? AND window = ?');
    this.#put = this.#db.prepare(
      'INSERT INTO preferences (owner, page, window, portlet, data, updated) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (owner, page, window) DO UPDATE SET portlet = excluded.portlet, data = excluded.data, updated = excluded.updated',
    );
    this.#delete = this.#db.prepare('DELETE FROM preferences WHERE owner = ? AND page = ? AND window = ?');
  }

  /** The stored values, or none when the window now shows another portlet or the row cannot be read. */
  load(owner: string, key: PreferencesKey): Record<string, Values> {
    const row = this.#get.get(owner, key.pageId, key.windowId);
    if (row === undefined || row.portlet !== key.portletName) return {};
    try {
      const data = JSON.parse(row.data) as unknown;
      return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, Values>) : {};
    } catch {
      return {};
    }
  }

  store(owner: string, key: PreferencesKey, values: Record<string, Values>): void {
    if (Object.keys(values).length === 0) this.#delete.run(owner, key.pageId, key.windowId);
    else this.#put.run(owner, key.pageId, key.windowId, key.portletName, JSON.stringify(values), Date.now());
  }

  /** Reachable (for /ready). */
  ping(): boolean {
    try {
      this.#db.prepare('SELECT 1').get();
      return true;
    } catch {
      return false;
    }
  }

  close(): void {
    this.#db.close();
  }
}

/**
 * Where second factors are kept (SPEC 15): svc's own SQLite file `otp.sqlite` in the data directory,
 * keyed by context and subject, whatever store holds the subjects (a directory's entries included).
 * A row holds the secret sealed (factor-cipher.ts), whether it is confirmed, and the SHA-256 of each
 * unused recovery code; never a secret in the clear. Every change is one statement or one
 * transaction, so a recovery code is consumed once however many requests race for it.
 */
import Database from 'better-sqlite3';
import { SqliteStatements } from '../sqlite-statements';

export interface StoredFactor {
  /** The sealed secret (factor-cipher.ts). */
  secret: string;
  confirmed: boolean;
  /** SHA-256 (base64url) of each unused recovery code. */
  recovery: string[];
}

interface Row {
  secret: string;
  confirmed: number;
  recovery: string;
}

export class FactorStore {
  private readonly db: Database.Database;
  private readonly sql: SqliteStatements;

  constructor(file: string) {
    this.db = new Database(file, { timeout: 2000 });
    this.db.pragma('journal_mode = WAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS factors (context TEXT NOT NULL, subject TEXT NOT NULL, secret TEXT NOT NULL,
      confirmed INTEGER NOT NULL, recovery TEXT NOT NULL, created TEXT NOT NULL, PRIMARY KEY (context, subject)) WITHOUT ROWID`);
    this.sql = new SqliteStatements(this.db);
  }

  get(contextId: string, uniqueId: string): StoredFactor | undefined {
    const row = this.sql.of('SELECT secret, confirmed, recovery FROM factors WHERE context = ? AND subject = ?').get(contextId, uniqueId) as Row | undefined;
    return row && { secret: row.secret, confirmed: row.confirmed === 1, recovery: JSON.parse(row.recovery) as string[] };
  }

  /** A new pending factor, replacing a pending one; false (nothing written) when one is confirmed. */
  putPending(contextId: string, uniqueId: string, secret: string): boolean {
    const result = this.sql
      .of(
        `INSERT INTO factors (context, subject, secret, confirmed, recovery, created) VALUES (?, ?, ?, 0, '[]', ?)
         ON CONFLICT (context, subject) DO UPDATE SET secret = excluded.secret, created = excluded.created WHERE confirmed = 0`,
      )
      .run(contextId, uniqueId, secret, new Date().toISOString());
    return result.changes === 1;
  }

  /** Confirms the pending factor whose sealed secret is `secret` (not one replaced meanwhile), with its recovery codes' hashes. */
  confirm(contextId: string, uniqueId: string, secret: string, recovery: readonly string[]): boolean {
    const result = this.sql.of('UPDATE factors SET confirmed = 1, recovery = ? WHERE context = ? AND subject = ? AND secret = ? AND confirmed = 0').run(JSON.stringify(recovery), contextId, uniqueId, secret);
    return result.changes === 1;
  }

  /** Writes the subject's factor as it is (svc import: the secret still sealed), replacing any. */
  put(contextId: string, uniqueId: string, factor: StoredFactor): void {
    this.sql
      .of(
        `INSERT INTO factors (context, subject, secret, confirmed, recovery, created) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (context, subject) DO UPDATE SET secret = excluded.secret, confirmed = excluded.confirmed, recovery = excluded.recovery, created = excluded.created`,
      )
      .run(contextId, uniqueId, factor.secret, factor.confirmed ? 1 : 0, JSON.stringify(factor.recovery), new Date().toISOString());
  }

  /** Removes the subject's factor, pending or confirmed; resolves whether there was one. */
  remove(contextId: string, uniqueId: string): boolean {
    return this.sql.of('DELETE FROM factors WHERE context = ? AND subject = ?').run(contextId, uniqueId).changes === 1;
  }

  /** Consumes one unused recovery code (by its hash) of a confirmed factor, atomically; whether it was there. */
  consumeRecovery(contextId: string, uniqueId: string, hash: string): boolean {
    return this.db.transaction(() => {
      const factor = this.get(contextId, uniqueId);
      if (!factor?.confirmed || !factor.recovery.includes(hash)) return false;
      const left = factor.recovery.filter((h) => h !== hash);
      this.sql.of('UPDATE factors SET recovery = ? WHERE context = ? AND subject = ?').run(JSON.stringify(left), contextId, uniqueId);
      return true;
    }).immediate();
  }

  close(): void {
    this.db.close();
  }
}

/**
 * Mail's state in SQLite (mail-store.ts has the rules): `mail.sqlite` in the data directory, shared
 * by the processes of one machine (WAL; a claim and a take are one IMMEDIATE transaction or one
 * statement, so two processes never claim one message nor take one token).
 */
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { SqliteStatements } from '../sqlite-statements';
import type { MailIntent, MailKind, MailStore, QueuedMail, StoredToken } from './mail-store';

interface QueueRow {
  id: string;
  kind: MailKind;
  context: string;
  subject: string;
  address: string;
  return_to: string | null;
  created: number;
  not_after: number;
  attempts: number;
}

interface TokenRow {
  hash: string;
  kind: StoredToken['kind'];
  context: string;
  subject: string;
  address: string;
  bound: string;
  expires: number;
}

export const queuedOf = (row: QueueRow): QueuedMail => ({
  id: row.id,
  kind: row.kind,
  contextId: row.context,
  uniqueId: row.subject,
  address: row.address,
  ...(row.return_to ? { returnTo: row.return_to } : {}),
  created: Number(row.created),
  notAfter: Number(row.not_after),
  attempts: Number(row.attempts),
});

export const tokenOf = (row: TokenRow): StoredToken => ({
  hash: row.hash,
  kind: row.kind,
  contextId: row.context,
  uniqueId: row.subject,
  address: row.address,
  bound: row.bound,
  expires: Number(row.expires),
});

export class SqliteMailStore implements MailStore {
  private readonly db: Database.Database;
  private readonly sql: SqliteStatements;

  constructor(file: string) {
    this.db = new Database(file, { timeout: 5000 });
    this.db.pragma('journal_mode = WAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS mail_queue (id TEXT PRIMARY KEY, kind TEXT NOT NULL, context TEXT NOT NULL, subject TEXT NOT NULL,
        address TEXT NOT NULL, return_to TEXT, created INTEGER NOT NULL, not_after INTEGER NOT NULL, attempts INTEGER NOT NULL, next_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS mail_queue_due ON mail_queue (next_at);
      CREATE TABLE IF NOT EXISTS mail_tokens (hash TEXT PRIMARY KEY, kind TEXT NOT NULL, context TEXT NOT NULL, subject TEXT NOT NULL,
        address TEXT NOT NULL, bound TEXT NOT NULL, expires INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS mail_unverified (context TEXT NOT NULL, subject TEXT NOT NULL, since INTEGER NOT NULL, PRIMARY KEY (context, subject)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS mail_pending (context TEXT NOT NULL, subject TEXT NOT NULL, address TEXT NOT NULL, expires INTEGER NOT NULL, PRIMARY KEY (context, subject)) WITHOUT ROWID;
    `);
    this.sql = new SqliteStatements(this.db);
  }

  async open(): Promise<void> {}

  async close(): Promise<void> {
    this.db.close();
  }

  async enqueue(intent: MailIntent, now: number): Promise<void> {
    this.sql
      .of('INSERT INTO mail_queue (id, kind, context, subject, address, return_to, created, not_after, attempts, next_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?)')
      .run(randomBytes(12).toString('base64url'), intent.kind, intent.contextId, intent.uniqueId, intent.address, intent.returnTo ?? null, now, intent.notAfter, now);
  }

  async claim(now: number, leaseMs: number): Promise<QueuedMail | undefined> {
    const take = this.db.transaction(() => {
      const row = this.sql.of('SELECT * FROM mail_queue WHERE next_at <= ? ORDER BY next_at LIMIT 1').get(now) as QueueRow | undefined;
      if (!row) return undefined;
      this.sql.of('UPDATE mail_queue SET next_at = ? WHERE id = ?').run(now + leaseMs, row.id);
      return row;
    });
    const row = take.immediate();
    return row && queuedOf(row);
  }

  async remove(id: string): Promise<void> {
    this.sql.of('DELETE FROM mail_queue WHERE id = ?').run(id);
  }

  async retry(id: string, attempts: number, nextAt: number): Promise<void> {
    this.sql.of('UPDATE mail_queue SET attempts = ?, next_at = ? WHERE id = ?').run(attempts, nextAt, id);
  }

  async nextDue(): Promise<number | undefined> {
    const row = this.sql.of('SELECT min(next_at) AS due FROM mail_queue').get() as { due: number | null };
    return row.due ?? undefined;
  }

  async queued(): Promise<number> {
    return (this.sql.of('SELECT count(*) AS n FROM mail_queue').get() as { n: number }).n;
  }

  async putToken(token: StoredToken): Promise<void> {
    this.sql
      .of('INSERT INTO mail_tokens (hash, kind, context, subject, address, bound, expires) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(token.hash, token.kind, token.contextId, token.uniqueId, token.address, token.bound, token.expires);
  }

  async takeToken(hash: string, kind: StoredToken['kind'], now: number): Promise<StoredToken | undefined> {
    const row = this.sql.of('DELETE FROM mail_tokens WHERE hash = ? AND kind = ? RETURNING *').get(hash, kind) as TokenRow | undefined;
    return row && Number(row.expires) > now ? tokenOf(row) : undefined;
  }

  async pruneTokens(now: number): Promise<void> {
    this.sql.of('DELETE FROM mail_tokens WHERE expires <= ?').run(now);
    this.sql.of('DELETE FROM mail_pending WHERE expires <= ?').run(now);
  }

  async markUnverified(contextId: string, uniqueId: string, now: number): Promise<void> {
    this.sql.of('INSERT INTO mail_unverified (context, subject, since) VALUES (?, ?, ?) ON CONFLICT (context, subject) DO UPDATE SET since = excluded.since').run(contextId, uniqueId, now);
  }

  async unverifiedSince(contextId: string, uniqueId: string): Promise<number | undefined> {
    const row = this.sql.of('SELECT since FROM mail_unverified WHERE context = ? AND subject = ?').get(contextId, uniqueId) as { since: number } | undefined;
    return row && Number(row.since);
  }

  async clearUnverified(contextId: string, uniqueId: string): Promise<boolean> {
    return this.sql.of('DELETE FROM mail_unverified WHERE context = ? AND subject = ?').run(contextId, uniqueId).changes === 1;
  }

  async unverifiedBefore(before: number, limit: number): Promise<Array<{ contextId: string; uniqueId: string }>> {
    const rows = this.sql.of('SELECT context, subject FROM mail_unverified WHERE since < ? ORDER BY since LIMIT ?').all(before, limit) as Array<{ context: string; subject: string }>;
    return rows.map((row) => ({ contextId: row.context, uniqueId: row.subject }));
  }

  async setPendingAddress(contextId: string, uniqueId: string, address: string, expires: number): Promise<void> {
    this.sql
      .of('INSERT INTO mail_pending (context, subject, address, expires) VALUES (?, ?, ?, ?) ON CONFLICT (context, subject) DO UPDATE SET address = excluded.address, expires = excluded.expires')
      .run(contextId, uniqueId, address, expires);
  }

  async pendingAddress(contextId: string, uniqueId: string, now: number): Promise<{ address: string; expires: number } | undefined> {
    const row = this.sql.of('SELECT address, expires FROM mail_pending WHERE context = ? AND subject = ? AND expires > ?').get(contextId, uniqueId, now) as { address: string; expires: number } | undefined;
    return row && { address: row.address, expires: Number(row.expires) };
  }

  async clearPendingAddress(contextId: string, uniqueId: string): Promise<void> {
    this.sql.of('DELETE FROM mail_pending WHERE context = ? AND subject = ?').run(contextId, uniqueId);
  }
}

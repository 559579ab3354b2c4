/**
 * Mail's state in PostgreSQL (mail-store.ts has the rules): the database of `stores.postgres`, shared
 * by every core. A claim is one UPDATE of a row picked with FOR UPDATE SKIP LOCKED, a take one
 * DELETE … RETURNING, so no two cores send one message at once nor accept one token twice. The
 * tables are created at open when missing (svc_mail_*: apart from the subject store's migrations).
 */
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import type { Logger } from '../../../common/src/log';
import type { PostgresSettings } from '../config/types';
import type { MailIntent, MailStore, QueuedMail, StoredToken } from './mail-store';
import { queuedOf, tokenOf } from './sqlite-mail-store';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS svc_mail_queue (id TEXT PRIMARY KEY, kind TEXT NOT NULL, context TEXT NOT NULL, subject TEXT NOT NULL,
    address TEXT NOT NULL, return_to TEXT, created BIGINT NOT NULL, not_after BIGINT NOT NULL, attempts INTEGER NOT NULL, next_at BIGINT NOT NULL);
  CREATE INDEX IF NOT EXISTS svc_mail_queue_due ON svc_mail_queue (next_at);
  CREATE TABLE IF NOT EXISTS svc_mail_tokens (hash TEXT PRIMARY KEY, kind TEXT NOT NULL, context TEXT NOT NULL, subject TEXT NOT NULL,
    address TEXT NOT NULL, bound TEXT NOT NULL, expires BIGINT NOT NULL);
  CREATE TABLE IF NOT EXISTS svc_mail_unverified (context TEXT NOT NULL, subject TEXT NOT NULL, since BIGINT NOT NULL, PRIMARY KEY (context, subject));
  CREATE TABLE IF NOT EXISTS svc_mail_pending (context TEXT NOT NULL, subject TEXT NOT NULL, address TEXT NOT NULL, expires BIGINT NOT NULL, PRIMARY KEY (context, subject));
`;

export class PostgresMailStore implements MailStore {
  private readonly pool: Pool;
  private opened?: Promise<void>;

  constructor(settings: PostgresSettings, log?: Logger) {
    this.pool = new Pool({
      connectionString: settings.url,
      max: Math.min(settings.poolSize, 4),
      connectionTimeoutMillis: settings.connectTimeoutMs,
      statement_timeout: settings.statementTimeoutMs,
      query_timeout: settings.statementTimeoutMs + 2_000,
      idleTimeoutMillis: 30_000,
      application_name: 'svc-mail',
    });
    this.pool.on('error', (error) => log?.warn({ err: error.message, store: 'postgres' }, 'an idle PostgreSQL connection of the mail queue failed'));
  }

  open(): Promise<void> {
    // Two cores creating the tables at once: the loser's CREATE … IF NOT EXISTS can still clash; once more settles it.
    this.opened ??= this.pool.query(SCHEMA).then(
      () => undefined,
      () => this.pool.query(SCHEMA).then(() => undefined),
    );
    return this.opened.catch((error: unknown) => {
      this.opened = undefined;
      throw error;
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async rows<R>(text: string, values: unknown[]): Promise<R[]> {
    await this.open();
    return (await this.pool.query(text, values)).rows as R[];
  }

  async enqueue(intent: MailIntent, now: number): Promise<void> {
    await this.rows('INSERT INTO svc_mail_queue (id, kind, context, subject, address, return_to, created, not_after, attempts, next_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, $7)', [
      randomBytes(12).toString('base64url'),
      intent.kind,
      intent.contextId,
      intent.uniqueId,
      intent.address,
      intent.returnTo ?? null,
      now,
      intent.notAfter,
    ]);
  }

  async claim(now: number, leaseMs: number): Promise<QueuedMail | undefined> {
    const [row] = await this.rows<Parameters<typeof queuedOf>[0]>(
      `UPDATE svc_mail_queue SET next_at = $2 WHERE id = (SELECT id FROM svc_mail_queue WHERE next_at <= $1 ORDER BY next_at LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING *`,
      [now, now + leaseMs],
    );
    return row && queuedOf(row);
  }

  async remove(id: string): Promise<void> {
    await this.rows('DELETE FROM svc_mail_queue WHERE id = $1', [id]);
  }

  async retry(id: string, attempts: number, nextAt: number): Promise<void> {
    await this.rows('UPDATE svc_mail_queue SET attempts = $2, next_at = $3 WHERE id = $1', [id, attempts, nextAt]);
  }

  async nextDue(): Promise<number | undefined> {
    const [row] = await this.rows<{ due: string | null }>('SELECT min(next_at) AS due FROM svc_mail_queue', []);
    return row?.due === null || row?.due === undefined ? undefined : Number(row.due);
  }

  async queued(): Promise<number> {
    const [row] = await this.rows<{ n: string }>('SELECT count(*) AS n FROM svc_mail_queue', []);
    return Number(row.n);
  }

  async putToken(token: StoredToken): Promise<void> {
    await this.rows('INSERT INTO svc_mail_tokens (hash, kind, context, subject, address, bound, expires) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      token.hash,
      token.kind,
      token.contextId,
      token.uniqueId,
      token.address,
      token.bound,
      token.expires,
    ]);
  }

  async takeToken(hash: string, kind: StoredToken['kind'], now: number): Promise<StoredToken | undefined> {
    const [row] = await this.rows<Parameters<typeof tokenOf>[0]>('DELETE FROM svc_mail_tokens WHERE hash = $1 AND kind = $2 RETURNING *', [hash, kind]);
    return row && Number(row.expires) > now ? tokenOf(row) : undefined;
  }

  async pruneTokens(now: number): Promise<void> {
    await this.rows('DELETE FROM svc_mail_tokens WHERE expires <= $1', [now]);
    await this.rows('DELETE FROM svc_mail_pending WHERE expires <= $1', [now]);
  }

  async markUnverified(contextId: string, uniqueId: string, now: number): Promise<void> {
    await this.rows('INSERT INTO svc_mail_unverified (context, subject, since) VALUES ($1, $2, $3) ON CONFLICT (context, subject) DO UPDATE SET since = excluded.since', [contextId, uniqueId, now]);
  }

  async unverifiedSince(contextId: string, uniqueId: string): Promise<number | undefined> {
    const [row] = await this.rows<{ since: string }>('SELECT since FROM svc_mail_unverified WHERE context = $1 AND subject = $2', [contextId, uniqueId]);
    return row && Number(row.since);
  }

  async clearUnverified(contextId: string, uniqueId: string): Promise<boolean> {
    return (await this.rows('DELETE FROM svc_mail_unverified WHERE context = $1 AND subject = $2 RETURNING 1', [contextId, uniqueId])).length === 1;
  }

  async unverifiedBefore(before: number, limit: number): Promise<Array<{ contextId: string; uniqueId: string }>> {
    const rows = await this.rows<{ context: string; subject: string }>('SELECT context, subject FROM svc_mail_unverified WHERE since < $1 ORDER BY since LIMIT $2', [before, limit]);
    return rows.map((row) => ({ contextId: row.context, uniqueId: row.subject }));
  }

  async setPendingAddress(contextId: string, uniqueId: string, address: string, expires: number): Promise<void> {
    await this.rows(
      'INSERT INTO svc_mail_pending (context, subject, address, expires) VALUES ($1, $2, $3, $4) ON CONFLICT (context, subject) DO UPDATE SET address = excluded.address, expires = excluded.expires',
      [contextId, uniqueId, address, expires],
    );
  }

  async pendingAddress(contextId: string, uniqueId: string, now: number): Promise<{ address: string; expires: number } | undefined> {
    const [row] = await this.rows<{ address: string; expires: string }>('SELECT address, expires FROM svc_mail_pending WHERE context = $1 AND subject = $2 AND expires > $3', [contextId, uniqueId, now]);
    return row && { address: row.address, expires: Number(row.expires) };
  }

  async clearPendingAddress(contextId: string, uniqueId: string): Promise<void> {
    await this.rows('DELETE FROM svc_mail_pending WHERE context = $1 AND subject = $2', [contextId, uniqueId]);
  }
}

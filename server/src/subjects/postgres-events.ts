import type { QueryResultRow } from 'pg';
import type { SubjectEventPage, SubjectEvent, SubjectEvents } from './subject-events';

type Query = <R extends QueryResultRow>(text: string, values: unknown[]) => Promise<R[]>;

/** Subject events in the PostgreSQL store's schema (migration 3), shared by every core on it. */
export class PostgresSubjectEvents implements SubjectEvents {
  constructor(private readonly query: Query) {}

  async append(context: string, uniqueId: string, e: SubjectEvent): Promise<void> {
    await this.query('INSERT INTO subject_events (context, subject_id, at, type, client, principal, peer, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
      context,
      uniqueId,
      e.at,
      e.type,
      e.client,
      e.principal,
      e.peer,
      e.detail,
    ]);
  }

  async list(context: string, uniqueId: string, offset: number, quantity: number): Promise<SubjectEventPage> {
    const rows = await this.query<{ total: number } & { [K in keyof SubjectEvent]: SubjectEvent[K] | null }>(
      `SELECT t.total, p.at, p.type, p.client, p.principal, p.peer, p.detail
       FROM (SELECT count(*)::integer AS total FROM subject_events WHERE context = $1 AND subject_id = $2) t
       LEFT JOIN LATERAL (SELECT at, type, client, principal, peer, detail FROM subject_events WHERE context = $1 AND subject_id = $2 ORDER BY id DESC LIMIT $3 OFFSET $4) p ON true`,
      [context, uniqueId, quantity, offset],
    );
    const events = rows.filter((r) => r.at !== null).map(({ at, type, client, principal, peer, detail }) => ({ at: at!, type: type!, client, principal, peer, detail: detail! }));
    return { events, total: rows[0]?.total ?? 0 };
  }

  async prune(before: string, keep: number): Promise<number> {
    const [old] = await this.query<{ n: number }>('WITH gone AS (DELETE FROM subject_events WHERE at < $1 RETURNING 1) SELECT count(*)::integer AS n FROM gone', [before]);
    const [beyond] = await this.query<{ n: number }>(
      `WITH gone AS (DELETE FROM subject_events WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY context, subject_id ORDER BY id DESC) AS n FROM subject_events) r WHERE n > $1) RETURNING 1)
       SELECT count(*)::integer AS n FROM gone`,
      [keep],
    );
    return old.n + beyond.n;
  }

  async forget(context: string, uniqueId: string): Promise<number> {
    const [gone] = await this.query<{ n: number }>('WITH gone AS (DELETE FROM subject_events WHERE context = $1 AND subject_id = $2 RETURNING 1) SELECT count(*)::integer AS n FROM gone', [context, uniqueId]);
    return gone.n;
  }
}

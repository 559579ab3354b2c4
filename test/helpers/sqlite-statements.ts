import type Database from 'better-sqlite3';

/** A statement a store ran: its text and parameters, as better-sqlite3 was asked (to EXPLAIN it afterwards). */
export interface RanStatement {
  sql: string;
  params: unknown[];
}

/** The statements `db` runs (`all` and `get`) during `run`, with what `run` gives. */
export async function recordStatements<T>(db: Database.Database, run: () => Promise<T>): Promise<{ result: T; seen: RanStatement[] }> {
  const seen: RanStatement[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const statement = prepare(sql);
    for (const method of ['all', 'get'] as const) {
      const original = statement[method].bind(statement) as (...params: unknown[]) => unknown;
      (statement as unknown as Record<string, unknown>)[method] = (...params: unknown[]) => {
        seen.push({ sql, params });
        return original(...params);
      };
    }
    return statement;
  }) as typeof db.prepare;
  try {
    return { result: await run(), seen };
  } finally {
    db.prepare = prepare as typeof db.prepare;
  }
}

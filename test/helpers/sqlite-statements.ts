import type Database from 'better-sqlite3';

/** A statement a store ran: its text and parameters, as better-sqlite3 was asked (to EXPLAIN it afterwards). */
export interface RanStatement {
  sql: string;
  params: unknown[];
}

/**
 * The statements `db` runs (`all` and `get`) during `run`, with what `run` gives. Stores keep their
 * statements prepared, so the recording is on the statements' class: what runs is seen whether it was
 * prepared before `run` or during it.
 */
export async function recordStatements<T>(db: Database.Database, run: () => Promise<T>): Promise<{ result: T; seen: RanStatement[] }> {
  const seen: RanStatement[] = [];
  const prototype = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<'all' | 'get', (...params: unknown[]) => unknown>;
  const originals = { all: prototype.all, get: prototype.get };
  for (const method of ['all', 'get'] as const) {
    prototype[method] = function (this: Database.Statement, ...params: unknown[]) {
      if (this.database === db) seen.push({ sql: this.source, params });
      return originals[method].apply(this, params);
    };
  }
  try {
    return { result: await run(), seen };
  } finally {
    Object.assign(prototype, originals);
  }
}

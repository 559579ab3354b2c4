import type Database from 'better-sqlite3';

/**
 * A database's prepared statements, each prepared once by its SQL text. Preparing costs more than
 * running a point query: a second factor's lookup, asked by the PDP for a page's every evaluation,
 * spent most of its time preparing (issue 28's profile of the core under a portal page).
 *
 * Statements built from a request (a SEARCH's filter has as many shapes as filters) are kept up to
 * `limit`, the least recently used dropped first, so that no client can grow the map without end.
 */
export class SqliteStatements {
  readonly #prepared = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly limit = Number.POSITIVE_INFINITY,
  ) {}

  of<P extends unknown[] = unknown[], R = unknown>(sql: string): Database.Statement<P, R> {
    let statement = this.#prepared.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      if (this.#prepared.size >= this.limit) this.#prepared.delete(this.#prepared.keys().next().value!);
    } else this.#prepared.delete(sql); // moved to the newest end: the map's order is the order of use
    this.#prepared.set(sql, statement);
    return statement as Database.Statement<P, R>;
  }
}

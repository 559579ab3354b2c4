import type Database from 'better-sqlite3';

/**
 * A database's prepared statements, each prepared once by its SQL text. Preparing costs more than
 * running a point query: a second factor's lookup, asked by the PDP for a page's every evaluation,
 * spent most of its time preparing (issue 28's profile of the core under a portal page).
 */
export class SqliteStatements {
  readonly #prepared = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  of(sql: string): Database.Statement {
    let statement = this.#prepared.get(sql);
    if (statement === undefined) this.#prepared.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }
}

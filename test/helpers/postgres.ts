import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { PG_URL } from './services';

/** `url` with its connections' search_path set to `schema` (how a store is pointed at one schema). */
export function urlWithSchema(schema: string, url = PG_URL): string {
  return `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/** A fresh schema name for one suite: `svc_test_<tag>_<pid>_<random>`. */
export function schemaName(tag: string): string {
  return `svc_test_${tag}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** Runs SQL on the test database outside any store (creating and dropping schemas, looking behind a store's back). */
export async function adminQuery<R extends Record<string, unknown> = Record<string, unknown>>(sql: string, values: unknown[] = [], url = PG_URL): Promise<R[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * The schemas a suite makes: `create()` gives a new empty one (its URL), and the suite's afterAll
 * drops every one of them. Call it inside the describe block that needs PostgreSQL.
 */
export function suiteSchemas(tag: string): { create(): Promise<{ schema: string; url: string }> } {
  const made: string[] = [];
  afterAll(async () => {
    for (const schema of made.splice(0)) await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });
  return {
    async create() {
      const schema = schemaName(tag);
      await adminQuery(`CREATE SCHEMA ${schema}`);
      made.push(schema);
      return { schema, url: urlWithSchema(schema) };
    },
  };
}

/** A `configure` for startTestServer (or any demo-shaped document): every context on PostgreSQL at `url`. */
export function onPostgres(url: string, settings: Record<string, unknown> = {}): (doc: Record<string, unknown>) => void {
  return (doc) => {
    for (const context of doc.contexts as Array<Record<string, unknown>>) context.store = 'postgres';
    doc.stores = { ...(doc.stores as object | undefined), postgres: { url, ...settings } };
  };
}

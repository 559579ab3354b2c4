import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The bench's PostgreSQL: SVC_BENCH_PG_URL, or the local `test` database. */
export const BENCH_PG_URL = process.env.SVC_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** One statement on a connection of its own (schemas made and dropped, ANALYZE). */
export async function adminQuery(sql: string): Promise<void> {
  const client = new Client({ connectionString: BENCH_PG_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface BenchSchema {
  name: string;
  /** The database URL that puts the store in this schema (its search_path). */
  url: string;
  drop(): Promise<void>;
}

/** A new schema of its own in the bench's PostgreSQL, so that runs never share or leave tables. */
export async function benchSchema(label = 'bench'): Promise<BenchSchema> {
  const name = `svc_${label}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE SCHEMA ${name}`);
  return {
    name,
    url: `${BENCH_PG_URL}${BENCH_PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${name}`)}`,
    drop: () => adminQuery(`DROP SCHEMA IF EXISTS ${name} CASCADE`),
  };
}

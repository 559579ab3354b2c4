import type { ClientBase } from 'pg';

/**
 * The PostgreSQL schema of the subject store, as numbered migrations (version i + 1 is
 * MIGRATIONS[i]). Applied versions are rows of `svc_schema_version`; each migration runs in the
 * transaction that records it, so a schema is always at one whole version. Tables live in the
 * connection's current schema (`search_path`; `?options=-c search_path=NAME` in the URL).
 *
 * Identifiers and folded values use the "C" collation whatever the database's default: ORDER BY id
 * is then code-point order, as in SQLite and in memory, and the prefix ranges of `sw` and free-text
 * search are exact (see filter/to-sql.ts).
 */
export const MIGRATIONS: ReadonlyArray<{ description: string; sql: string }> = [
  {
    description: 'subjects, their uniqueness keys and their folded values',
    sql: `
      CREATE TABLE subjects (
        context text NOT NULL,
        id text COLLATE "C" NOT NULL,
        id_lc text COLLATE "C" NOT NULL,
        attributes jsonb NOT NULL,
        version integer NOT NULL,
        created timestamptz NOT NULL,
        modified timestamptz NOT NULL,
        PRIMARY KEY (context, id)
      );
      -- A uniqueId is unique case-insensitively (the login key says so too; this holds even without it).
      CREATE UNIQUE INDEX subjects_id_lc ON subjects (context, id_lc);
      -- Login names and unique attribute values, folded: the primary key is what makes them unique.
      CREATE TABLE subject_keys (
        context text NOT NULL,
        key text COLLATE "C" NOT NULL,
        subject_id text COLLATE "C" NOT NULL,
        PRIMARY KEY (context, key),
        FOREIGN KEY (context, subject_id) REFERENCES subjects (context, id) ON DELETE CASCADE
      );
      CREATE INDEX subject_keys_owner ON subject_keys (context, subject_id);
      CREATE TABLE subject_values (
        context text NOT NULL,
        subject_id text COLLATE "C" NOT NULL,
        name text COLLATE "C" NOT NULL,
        value_lc text COLLATE "C" NOT NULL,
        FOREIGN KEY (context, subject_id) REFERENCES subjects (context, id) ON DELETE CASCADE
      );
      CREATE INDEX subject_values_lookup ON subject_values (context, name, value_lc);
      CREATE INDEX subject_values_owner ON subject_values (context, subject_id);`,
  },
  {
    description: 'sort keys: each subject\'s least value of an attribute, indexed for sorted searches',
    sql: `
      ALTER TABLE subject_values ADD COLUMN least boolean NOT NULL DEFAULT false;
      UPDATE subject_values v SET least = true FROM (
        SELECT DISTINCT ON (context, subject_id, name) ctid AS row FROM subject_values ORDER BY context, subject_id, name, value_lc
      ) f WHERE v.ctid = f.row;
      CREATE INDEX subject_values_sort ON subject_values (context, name, value_lc, subject_id) WHERE least;
      CREATE INDEX subject_values_key ON subject_values (context, subject_id, name, value_lc) WHERE least;`,
  },
  {
    description: 'subject events: the audit events about each subject, newest first by id',
    sql: `
      CREATE TABLE subject_events (
        id bigserial PRIMARY KEY,
        context text NOT NULL,
        subject_id text COLLATE "C" NOT NULL,
        at text COLLATE "C" NOT NULL,
        type text NOT NULL,
        client text,
        principal text,
        peer text,
        detail text NOT NULL
      );
      CREATE INDEX subject_events_subject ON subject_events (context, subject_id, id);
      CREATE INDEX subject_events_at ON subject_events (at);`,
  },
  {
    description: 'SCIM groups: stable ids of the roles held and of the groups made over SCIM, shared by every core',
    sql: `
      CREATE TABLE scim_groups (
        context text NOT NULL,
        id text COLLATE "C" NOT NULL,
        name text COLLATE "C" NOT NULL,
        name_lc text COLLATE "C" NOT NULL,
        created text COLLATE "C" NOT NULL,
        modified text COLLATE "C" NOT NULL,
        version integer NOT NULL,
        kept boolean NOT NULL,
        PRIMARY KEY (context, id)
      );
      CREATE UNIQUE INDEX scim_groups_name ON scim_groups (context, name_lc);`,
  },
];

/** The version this svc needs. */
export const LATEST_VERSION = MIGRATIONS.length;

/** A schema older than this svc under `migrate: refuse`, or newer than this svc at all. */
export class SchemaVersionError extends Error {
  constructor(
    message: string,
    readonly found: number,
  ) {
    super(message);
    this.name = 'SchemaVersionError';
  }
}

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS svc_schema_version (
  version integer PRIMARY KEY,
  description text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** The schema's version: 0 when svc has never migrated it. */
export async function schemaVersion(client: ClientBase): Promise<number> {
  const table = await client.query<{ present: boolean }>(`SELECT to_regclass('svc_schema_version') IS NOT NULL AS present`);
  if (!table.rows[0].present) return 0;
  const result = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM svc_schema_version');
  return result.rows[0].version ?? 0;
}

function newerThanUs(found: number): SchemaVersionError {
  return new SchemaVersionError(
    `the PostgreSQL schema is at version ${found}, newer than this svc knows (${LATEST_VERSION}): run a newer svc`,
    found,
  );
}

/** For `migrate: refuse`: the schema must be at this svc's version already. */
export async function checkSchema(client: ClientBase): Promise<void> {
  const found = await schemaVersion(client);
  if (found > LATEST_VERSION) throw newerThanUs(found);
  if (found < LATEST_VERSION) {
    throw new SchemaVersionError(
      `the PostgreSQL schema is at version ${found} and this svc needs version ${LATEST_VERSION}; ` +
        `stores.postgres.migrate is "refuse", so run "svc migrate --config FILE" first`,
      found,
    );
  }
}

/**
 * Brings the schema to LATEST_VERSION in one transaction and returns the versions applied. An
 * advisory lock per schema makes cores that start together migrate one after the other: the later
 * ones find nothing left to do.
 */
export async function migrateSchema(client: ClientBase): Promise<number[]> {
  const schema = await client.query<{ name: string | null }>('SELECT current_schema() AS name');
  if (schema.rows[0].name === null) throw new Error('the search_path of stores.postgres.url names no existing schema: create it first');
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('svc.schema.' || current_schema()))`);
    await client.query(VERSION_TABLE);
    const found = await schemaVersion(client);
    if (found > LATEST_VERSION) throw newerThanUs(found);
    const applied: number[] = [];
    for (let version = found + 1; version <= LATEST_VERSION; version++) {
      const migration = MIGRATIONS[version - 1];
      await client.query(migration.sql);
      await client.query('INSERT INTO svc_schema_version (version, description) VALUES ($1, $2)', [version, migration.description]);
      applied.push(version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

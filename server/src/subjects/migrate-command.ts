import { parseArgs } from 'node:util';
import { loadConfigFile } from '../config/load';
import { LATEST_VERSION } from './postgres-migrations';
import { PostgresSubjectStore } from './postgres-store';

export const MIGRATE_USAGE = `Usage: svc migrate --config FILE

Brings the PostgreSQL schema of stores.postgres to this svc's version, whatever
stores.postgres.migrate says, and prints the versions applied. Versions are recorded in the table
svc_schema_version; each migration runs in one transaction, under a lock, so running it twice or
while cores start is safe. Cores with migrate "refuse" start only on a schema at their version.
`;

/** `svc migrate --config FILE`; returns the exit code (0 done, 1 failed, 2 usage). */
export async function runMigrate(
  argv: readonly string[],
  io: { stdout: { write(text: string): unknown }; stderr: { write(text: string): unknown }; env: NodeJS.ProcessEnv },
): Promise<number> {
  let path: string | undefined;
  try {
    const { values } = parseArgs({ args: [...argv], options: { config: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } } });
    if (values.help) {
      io.stdout.write(MIGRATE_USAGE);
      return 0;
    }
    path = values.config ?? io.env.SVC_CONFIG;
    if (!path) throw new Error('--config is required');
  } catch (error) {
    io.stderr.write(`svc migrate: ${(error as Error).message}\n\n${MIGRATE_USAGE}`);
    return 2;
  }
  let store: PostgresSubjectStore | undefined;
  try {
    const settings = loadConfigFile(path, io.env).stores.postgres;
    if (!settings) throw new Error(`${path} has no stores.postgres section: nothing to migrate`);
    store = new PostgresSubjectStore(settings);
    const applied = await store.migrate();
    io.stdout.write(
      applied.length
        ? `PostgreSQL schema migrated to version ${LATEST_VERSION} (applied ${applied.join(', ')})\n`
        : `PostgreSQL schema already at version ${LATEST_VERSION}\n`,
    );
    return 0;
  } catch (error) {
    io.stderr.write(`svc migrate: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await store?.close();
  }
}

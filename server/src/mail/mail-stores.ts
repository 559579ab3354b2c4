import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from '../../../common/src/log';
import type { SvcConfig } from '../config/types';
import type { MailStore } from './mail-store';
import { SqliteMailStore } from './sqlite-mail-store';

/** `mail.queue` → a store: `mail.sqlite` in the data directory, or the database of `stores.postgres`. */
export function createMailStore(config: SvcConfig, log?: Logger): MailStore {
  if (config.mail?.queue === 'postgres') {
    const settings = config.stores.postgres;
    if (!settings) throw new Error('mail.queue is "postgres" but the configuration has no stores.postgres');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { PostgresMailStore } = require('./postgres-mail-store') as typeof import('./postgres-mail-store');
    return new PostgresMailStore(settings, log);
  }
  const dir = resolve(config.server.dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return new SqliteMailStore(join(dir, 'mail.sqlite'));
}

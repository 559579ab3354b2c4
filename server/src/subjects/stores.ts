import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from '../../../common/src/log';
import type { SubjectStoreKind, SvcConfig } from '../config/types';
import { SubjectEventsFile } from './events-file';
import { SubjectGroupsFile } from './groups-file';
import { MemorySubjectStore } from './memory-store';
import { SqliteSubjectStore } from './sqlite-store';
import type { SubjectStore } from './store';

/**
 * The one place a store kind of `contexts[].store` becomes a store: `sqlite` is `svc.db` in the data
 * directory, `postgres` the database of `stores.postgres`, `ldap` the directory of `stores.ldap` (its
 * subject events in `events.sqlite` in the data directory), `memory` this process's memory. A core
 * and the export and import commands open their stores here.
 */
export function createSubjectStore(kind: SubjectStoreKind, config: SvcConfig, options: { log?: Logger } = {}): SubjectStore {
  switch (kind) {
    case 'memory':
      return new MemorySubjectStore();
    case 'postgres': {
      const settings = config.stores.postgres;
      // The configuration's cross-checks refuse a postgres context without the section.
      if (!settings) throw new Error('a context is on "postgres" but the configuration has no stores.postgres');
      // Loaded when a context needs it: every svc process (the CLI's too) would otherwise load pg at start.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { PostgresSubjectStore } = require('./postgres-store') as typeof import('./postgres-store');
      return new PostgresSubjectStore(settings, { log: options.log });
    }
    case 'ldap': {
      const settings = config.stores.ldap;
      if (!settings) throw new Error('a context is on "ldap" but the configuration has no stores.ldap');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { LdapSubjectStore, ldapShapes } = require('./ldap-store') as typeof import('./ldap-store');
      // The directory has no place for subject events: svc's own events.sqlite keeps them (opened at first use).
      const events = new SubjectEventsFile(join(resolve(config.server.dataDir), 'events.sqlite'));
      // Nor for SCIM's group ids: svc's own groups.sqlite beside it.
      const groups = new SubjectGroupsFile(join(resolve(config.server.dataDir), 'groups.sqlite'));
      return new LdapSubjectStore(settings, ldapShapes(config.contexts.filter((c) => c.store === 'ldap')), { log: options.log, events, groups });
    }
    case 'sqlite': {
      const dir = resolve(config.server.dataDir);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return new SqliteSubjectStore(join(dir, 'svc.db'));
    }
  }
}

/**
 * SCIM's groups of an `ldap` store's contexts (SPEC 14): the directory holds subjects, not svc's
 * group ids, so, as its subject events are (events-file.ts) and second factors (otp.sqlite), they are
 * kept in svc's own SQLite file, `groups.sqlite` in the data directory (side-file.ts): the SQLite
 * store's table and statements (subject-groups.ts) in a file of their own, shared by the core's LDAP
 * contexts. Cores with data directories of their own keep ids of their own (docs/operations.md).
 */
import { SqliteSideFile } from './side-file';
import { SQLITE_GROUPS_MIGRATION, SqliteSubjectGroups, type StoredGroup, type SubjectGroups } from './subject-groups';

export class SubjectGroupsFile implements SubjectGroups {
  private readonly side: SqliteSideFile<SqliteSubjectGroups>;

  constructor(readonly file: string) {
    this.side = new SqliteSideFile(file, SQLITE_GROUPS_MIGRATION, (db) => new SqliteSubjectGroups(db));
  }

  private groups(): SqliteSubjectGroups {
    return this.side.content();
  }

  // Reads of a data directory without the file find no group and make no file (svc export).
  async list(context: string): Promise<StoredGroup[]> {
    return (await this.side.existing()?.list(context)) ?? [];
  }

  async get(context: string, id: string): Promise<StoredGroup | undefined> {
    return this.side.existing()?.get(context, id);
  }

  async byNames(context: string, names: readonly string[]): Promise<StoredGroup[]> {
    return (await this.side.existing()?.byNames(context, names)) ?? [];
  }

  ensure(context: string, names: readonly string[]): Promise<void> {
    return this.groups().ensure(context, names);
  }

  create(context: string, name: string): Promise<StoredGroup> {
    return this.groups().create(context, name);
  }

  update(context: string, group: StoredGroup, name: string): Promise<boolean> {
    return this.groups().update(context, group, name);
  }

  async delete(context: string, id: string): Promise<boolean> {
    return (await this.side.existing()?.delete(context, id)) ?? false;
  }

  importGroups(context: string, groups: readonly StoredGroup[], replace: boolean): Promise<void> {
    return groups.length ? this.groups().importGroups(context, groups, replace) : Promise.resolve();
  }

  close(): void {
    this.side.close();
  }
}

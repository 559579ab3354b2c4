/**
 * SCIM's groups of a context (SPEC 14), kept beside its subjects so that every core sharing the
 * subject store sees the same ids: a stable id assigned by svc, the displayName (the role), created,
 * modified, a version, and whether the group is SCIM's own (`kept`: made or changed over SCIM, so it
 * persists empty) or only a role seen held (listed while someone holds it, its id kept for when the
 * role comes back). Names are unique per context as svc folds them (subject.ts's fold).
 *
 * Variants: memory (here), SQLite (here: the SQLite store's own file, and an `ldap` store's
 * groups.sqlite in the data directory, groups-file.ts), PostgreSQL (postgres-groups.ts, migration 4).
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { Conflict } from '../../../common/src/errors';
import { fold } from './subject';

export interface StoredGroup {
  id: string;
  name: string;
  created: string;
  modified: string;
  version: number;
  /** Made or changed over SCIM: listed even when nobody holds the role. */
  kept: boolean;
}

export interface SubjectGroups {
  /** Every group of the context, by folded name then id. */
  list(context: string): Promise<StoredGroup[]>;
  get(context: string, id: string): Promise<StoredGroup | undefined>;
  /** The groups of these names (compared folded), in no particular order; names without a group are left out. */
  byNames(context: string, names: readonly string[]): Promise<StoredGroup[]>;
  /** Registers each name that has no group yet as a role seen held (not kept); existing ones stay as they are. */
  ensure(context: string, names: readonly string[]): Promise<void>;
  /** A new group made over SCIM (kept); Conflict when the name (folded) has one. */
  create(context: string, name: string): Promise<StoredGroup>;
  /** A new name and a new version, the group kept, on the version read: false when another write came first; Conflict for a taken name. */
  update(context: string, group: StoredGroup, name: string): Promise<boolean>;
  delete(context: string, id: string): Promise<boolean>;
  /**
   * `svc import`'s groups (SPEC 12, 14), written as exported: ids, names, timestamps, versions and
   * `kept` as given, all or none (planGroupImport decides). The stores' importSubjects call it in
   * the subjects' transaction where they have one.
   */
  importGroups(context: string, groups: readonly StoredGroup[], replace: boolean): Promise<void>;
}

export const groupTaken = (): Conflict => new Conflict('a group of this displayName exists');

/** Why a displayName cannot be a group's (SCIM's writes and svc import), or undefined when it can. */
export function groupNameProblem(name: unknown): string | undefined {
  return typeof name !== 'string' || name.trim() === '' || name.length > 256 ? 'displayName is 1 to 256 characters' : undefined;
}

/**
 * What a group id may be when it comes from outside (svc import): svc assigns UUIDs, and an id is a
 * path segment of `/Groups/{id}`, so URL-safe characters only.
 */
export const GROUP_ID = /^[A-Za-z0-9._~-]{1,128}$/;

/**
 * What an import of groups does to a context's groups, all or nothing: each group is written with
 * its id, and a group whose id exists, or whose displayName (folded) another group of the context
 * has, is a Conflict naming it (`extensions.groupId`), unless `replace`: then the group of that id
 * is replaced (its version above the one it had, so an ETag read before does not match) and another
 * group of that name is removed, its id given up to the imported one. Groups not imported stay.
 * `remove` are deleted before `rows` are inserted (a swap of two names passes).
 */
export function planGroupImport(existing: readonly StoredGroup[], incoming: readonly StoredGroup[], replace: boolean): { remove: string[]; rows: StoredGroup[] } {
  const byId = new Map(existing.map((g) => [g.id, g]));
  const byName = new Map(existing.map((g) => [fold(g.name), g]));
  const remove = new Set<string>();
  const rows = incoming.map((group) => {
    const same = byId.get(group.id);
    const named = byName.get(fold(group.name));
    if (!replace) {
      if (same) throw new Conflict(`group ${group.id} exists`, { extensions: { groupId: group.id } });
      if (named) throw new Conflict(`group ${group.id}: the displayName ${group.name} is another group's (${named.id})`, { extensions: { groupId: group.id } });
    }
    if (same) remove.add(same.id);
    if (named) remove.add(named.id);
    return same ? { ...group, version: Math.max(group.version, same.version + 1) } : { ...group };
  });
  return { remove: [...remove], rows };
}

/** A context's groups in a stable order: by folded name, then id. */
export const byFoldedName = (a: StoredGroup, b: StoredGroup): number => {
  const x = fold(a.name);
  const y = fold(b.name);
  return x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
};

/** In process memory, with the memory subject store. */
export class MemorySubjectGroups implements SubjectGroups {
  private readonly contexts = new Map<string, Map<string, StoredGroup>>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  private of(context: string): Map<string, StoredGroup> {
    let groups = this.contexts.get(context);
    if (!groups) this.contexts.set(context, (groups = new Map()));
    return groups;
  }

  private named(context: string, name: string): StoredGroup | undefined {
    const folded = fold(name);
    return [...this.of(context).values()].find((g) => fold(g.name) === folded);
  }

  async list(context: string): Promise<StoredGroup[]> {
    return [...this.of(context).values()].map((g) => ({ ...g })).sort(byFoldedName);
  }

  async get(context: string, id: string): Promise<StoredGroup | undefined> {
    const group = this.of(context).get(id);
    return group && { ...group };
  }

  async byNames(context: string, names: readonly string[]): Promise<StoredGroup[]> {
    const folded = new Set(names.map(fold));
    return [...this.of(context).values()].filter((g) => folded.has(fold(g.name))).map((g) => ({ ...g }));
  }

  async ensure(context: string, names: readonly string[]): Promise<void> {
    const at = this.now().toISOString();
    for (const name of names) {
      if (this.named(context, name)) continue;
      const id = randomUUID();
      this.of(context).set(id, { id, name, created: at, modified: at, version: 1, kept: false });
    }
  }

  async create(context: string, name: string): Promise<StoredGroup> {
    if (this.named(context, name)) throw groupTaken();
    const at = this.now().toISOString();
    const group = { id: randomUUID(), name, created: at, modified: at, version: 1, kept: true };
    this.of(context).set(group.id, group);
    return { ...group };
  }

  async update(context: string, group: StoredGroup, name: string): Promise<boolean> {
    const current = this.of(context).get(group.id);
    if (!current || current.version !== group.version) return false;
    const other = this.named(context, name);
    if (other && other.id !== group.id) throw groupTaken();
    Object.assign(current, { name, modified: this.now().toISOString(), version: current.version + 1, kept: true });
    return true;
  }

  async delete(context: string, id: string): Promise<boolean> {
    return this.of(context).delete(id);
  }

  async importGroups(context: string, groups: readonly StoredGroup[], replace: boolean): Promise<void> {
    this.importNow(context, groups, replace);
  }

  /** importGroups synchronously (the memory store's import: with its subjects, nothing between). */
  importNow(context: string, groups: readonly StoredGroup[], replace: boolean): void {
    const { remove, rows } = planGroupImport([...this.of(context).values()], groups, replace);
    for (const id of remove) this.of(context).delete(id);
    for (const group of rows) this.of(context).set(group.id, group);
  }
}

/** The table of a SQLite file that keeps groups: the SQLite store's migration 5, groups.sqlite's version 1. */
export const SQLITE_GROUPS_MIGRATION = `CREATE TABLE scim_groups (context TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL, name_lc TEXT NOT NULL,
     created TEXT NOT NULL, modified TEXT NOT NULL, version INTEGER NOT NULL, kept INTEGER NOT NULL, PRIMARY KEY (context, id)) WITHOUT ROWID;
   CREATE UNIQUE INDEX scim_groups_name ON scim_groups (context, name_lc);`;

interface Row {
  id: string;
  name: string;
  created: string;
  modified: string;
  version: number;
  kept: number;
}

const COLUMNS = 'id, name, created, modified, version, kept';
const toGroup = (row: Row): StoredGroup => ({ ...row, kept: row.kept === 1 });

/** Groups in a SQLite file: the SQLite store's own, or an `ldap` store's groups.sqlite (groups-file.ts). */
export class SqliteSubjectGroups implements SubjectGroups {
  private readonly statements;

  constructor(
    private readonly db: Database.Database,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.statements = {
      list: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM scim_groups WHERE context = ? ORDER BY name_lc, id`),
      get: db.prepare<[string, string], Row>(`SELECT ${COLUMNS} FROM scim_groups WHERE context = ? AND id = ?`),
      byName: db.prepare<[string, string], Row>(`SELECT ${COLUMNS} FROM scim_groups WHERE context = ? AND name_lc = ?`),
      insert: db.prepare('INSERT INTO scim_groups (context, id, name, name_lc, created, modified, version, kept) VALUES (?, ?, ?, ?, ?, ?, 1, ?) ON CONFLICT DO NOTHING'),
      update: db.prepare('UPDATE scim_groups SET name = ?, name_lc = ?, modified = ?, version = version + 1, kept = 1 WHERE context = ? AND id = ? AND version = ?'),
      remove: db.prepare('DELETE FROM scim_groups WHERE context = ? AND id = ?'),
      imported: db.prepare('INSERT INTO scim_groups (context, id, name, name_lc, created, modified, version, kept) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
    };
  }

  async list(context: string): Promise<StoredGroup[]> {
    return this.statements.list.all(context).map(toGroup);
  }

  async get(context: string, id: string): Promise<StoredGroup | undefined> {
    const row = this.statements.get.get(context, id);
    return row && toGroup(row);
  }

  async byNames(context: string, names: readonly string[]): Promise<StoredGroup[]> {
    return [...new Set(names.map(fold))].flatMap((name) => {
      const row = this.statements.byName.get(context, name);
      return row ? [toGroup(row)] : [];
    });
  }

  async ensure(context: string, names: readonly string[]): Promise<void> {
    const at = this.now().toISOString();
    this.db.transaction(() => {
      for (const name of names) this.statements.insert.run(context, randomUUID(), name, fold(name), at, at, 0);
    })();
  }

  async create(context: string, name: string): Promise<StoredGroup> {
    const at = this.now().toISOString();
    const id = randomUUID();
    if (this.statements.insert.run(context, id, name, fold(name), at, at, 1).changes === 0) throw groupTaken();
    return toGroup(this.statements.get.get(context, id)!);
  }

  async update(context: string, group: StoredGroup, name: string): Promise<boolean> {
    try {
      return this.statements.update.run(name, fold(name), this.now().toISOString(), context, group.id, group.version).changes === 1;
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw groupTaken();
      throw error;
    }
  }

  async delete(context: string, id: string): Promise<boolean> {
    return this.statements.remove.run(context, id).changes === 1;
  }

  async importGroups(context: string, groups: readonly StoredGroup[], replace: boolean): Promise<void> {
    this.importNow(context, groups, replace);
  }

  /** importGroups synchronously, in a transaction of its own or (a savepoint) in the SQLite store's import. */
  importNow(context: string, groups: readonly StoredGroup[], replace: boolean): void {
    if (groups.length === 0) return;
    this.db.transaction(() => {
      const { remove, rows } = planGroupImport(this.statements.list.all(context).map(toGroup), groups, replace);
      for (const id of remove) this.statements.remove.run(context, id);
      for (const g of rows) this.statements.imported.run(context, g.id, g.name, fold(g.name), g.created, g.modified, g.version, g.kept ? 1 : 0);
    })();
  }
}

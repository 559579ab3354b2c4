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
}

export const groupTaken = (): Conflict => new Conflict('a group of this displayName exists');

const byFoldedName = (a: StoredGroup, b: StoredGroup): number => {
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
}

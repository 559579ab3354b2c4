import { randomUUID } from 'node:crypto';
import type { QueryResultRow } from 'pg';
import { fold } from './subject';
import { groupTaken, planGroupImport, type StoredGroup, type SubjectGroups } from './subject-groups';

export type Query = <R extends QueryResultRow>(text: string, values: unknown[]) => Promise<R[]>;
/** Runs `body` in one transaction, its statements on the transaction's connection. */
export type Transact = <T>(body: (query: Query) => Promise<T>) => Promise<T>;

const COLUMNS = 'id, name, created, modified, version, kept';

/**
 * SCIM's groups in the PostgreSQL store's schema (migration 4), shared by every core on it: the
 * primary key and the unique folded name decide between cores, so two cores seeing a role first at
 * once assign it one id (the other insert does nothing), and a rename is conditioned on the version.
 */
export class PostgresSubjectGroups implements SubjectGroups {
  constructor(
    private readonly query: Query,
    private readonly transact: Transact,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async list(context: string): Promise<StoredGroup[]> {
    return this.query<StoredGroup>(`SELECT ${COLUMNS} FROM scim_groups WHERE context = $1 ORDER BY name_lc, id`, [context]);
  }

  async get(context: string, id: string): Promise<StoredGroup | undefined> {
    return (await this.query<StoredGroup>(`SELECT ${COLUMNS} FROM scim_groups WHERE context = $1 AND id = $2`, [context, id]))[0];
  }

  async byNames(context: string, names: readonly string[]): Promise<StoredGroup[]> {
    if (names.length === 0) return [];
    return this.query<StoredGroup>(`SELECT ${COLUMNS} FROM scim_groups WHERE context = $1 AND name_lc = ANY($2::text[])`, [context, [...new Set(names.map(fold))]]);
  }

  async ensure(context: string, names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    const at = this.now().toISOString();
    await this.query(
      `INSERT INTO scim_groups (context, id, name, name_lc, created, modified, version, kept)
       SELECT $1, g.id, g.name, g.name_lc, $5, $5, 1, false FROM unnest($2::text[], $3::text[], $4::text[]) AS g(id, name, name_lc)
       ON CONFLICT DO NOTHING`,
      [context, names.map(() => randomUUID()), names, names.map(fold), at],
    );
  }

  async create(context: string, name: string): Promise<StoredGroup> {
    const at = this.now().toISOString();
    const [created] = await this.query<StoredGroup>(
      `INSERT INTO scim_groups (context, id, name, name_lc, created, modified, version, kept) VALUES ($1, $2, $3, $4, $5, $5, 1, true)
       ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
      [context, randomUUID(), name, fold(name), at],
    );
    if (!created) throw groupTaken();
    return created;
  }

  async update(context: string, group: StoredGroup, name: string): Promise<boolean> {
    try {
      const rows = await this.query(
        'UPDATE scim_groups SET name = $1, name_lc = $2, modified = $3, version = version + 1, kept = true WHERE context = $4 AND id = $5 AND version = $6 RETURNING id',
        [name, fold(name), this.now().toISOString(), context, group.id, group.version],
      );
      return rows.length === 1;
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw groupTaken();
      throw error;
    }
  }

  async delete(context: string, id: string): Promise<boolean> {
    return (await this.query('DELETE FROM scim_groups WHERE context = $1 AND id = $2 RETURNING id', [context, id])).length === 1;
  }

  async importGroups(context: string, groups: readonly StoredGroup[], replace: boolean): Promise<void> {
    if (groups.length) await this.transact((query) => importPostgresGroups(query, context, groups, replace));
  }
}

/**
 * An import's groups on a transaction's connection (the PostgreSQL store's importSubjects: in the
 * subjects' transaction). The table is locked against other writers until the transaction ends, so
 * the groups read are the groups written over: a core seeing a role first waits, then finds the
 * imported group of its name. Meant for the end of a transaction: the lock is held until it commits.
 */
export async function importPostgresGroups(query: Query, context: string, groups: readonly StoredGroup[], replace: boolean): Promise<void> {
  if (groups.length === 0) return;
  await query('LOCK TABLE scim_groups IN SHARE ROW EXCLUSIVE MODE', []);
  const existing = await query<StoredGroup>(`SELECT ${COLUMNS} FROM scim_groups WHERE context = $1`, [context]);
  const { remove, rows } = planGroupImport(existing, groups, replace);
  if (remove.length) await query('DELETE FROM scim_groups WHERE context = $1 AND id = ANY($2::text[])', [context, remove]);
  await query(
    `INSERT INTO scim_groups (context, id, name, name_lc, created, modified, version, kept)
     SELECT $1, g.id, g.name, g.name_lc, g.created, g.modified, g.version, g.kept
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::integer[], $8::boolean[]) AS g(id, name, name_lc, created, modified, version, kept)`,
    [context, rows.map((g) => g.id), rows.map((g) => g.name), rows.map((g) => fold(g.name)), rows.map((g) => g.created), rows.map((g) => g.modified), rows.map((g) => g.version), rows.map((g) => g.kept)],
  );
}

/**
 * SCIM Groups ↔ a context's roles (SPEC 14). The groups are kept in svc's own SQLite file
 * `scim.sqlite` in the data directory (as second factors are in `otp.sqlite`): a stable id assigned by
 * svc, the displayName (the role), created, modified and a version, per context, so an empty group an
 * identity provider creates before its members persists. Every role a subject holds is a group too:
 * each list asks the subject store for the distinct roles held (its own query) and gives a role seen
 * for the first time its id, kept from then on, whichever transport gave the role.
 *
 * Members are the subjects holding the role: adding or removing one writes that subject's `roles`
 * through SubjectOperations (validation, audit, roles cache, the provisioner's adminRoles rule); a
 * rename renames the role on every member; a delete takes it from every member. Every member a
 * write changes is first decided by the policy decision point as an UPDATE of that subject, with the
 * adminRoles rule, all before the first is written: one refusal refuses the whole write. A role named in the
 * context's `adminRoles` is neither renamed nor deleted over SCIM (400 mutability).
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { AttributeNotWritable, Conflict, InvalidRequest, NotFound, PreconditionFailed } from '../../../common/src/errors';
import type { FilterNode } from '../subjects/filter/ast';
import { fold, valuesOf, type StoredSubject } from '../subjects/subject';
import { expectedVersion, ROLES_ATTRIBUTE, type Actor, type SubjectOperations } from '../subjects/subject-operations';
import type { SubjectService } from '../subjects/subject-service';
import type { Asker, Decisions } from '../policy/decisions';

export interface StoredGroup {
  id: string;
  name: string;
  created: string;
  modified: string;
  version: number;
}

interface Row {
  id: string;
  name: string;
  created: string;
  modified: string;
  version: number;
}

export class GroupStore {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();

  /** A statement prepared once (every User answer reads its groups by name). */
  private prepare(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  constructor(file: string) {
    this.db = new Database(file, { timeout: 2000 });
    this.db.pragma('journal_mode = WAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS groups (context TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL, name_lc TEXT NOT NULL,
      created TEXT NOT NULL, modified TEXT NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (context, id)) WITHOUT ROWID;
      CREATE UNIQUE INDEX IF NOT EXISTS groups_name ON groups (context, name_lc)`);
  }

  list(context: string): StoredGroup[] {
    return this.prepare('SELECT id, name, created, modified, version FROM groups WHERE context = ? ORDER BY name_lc, id').all(context) as Row[];
  }

  get(context: string, id: string): StoredGroup | undefined {
    return this.prepare('SELECT id, name, created, modified, version FROM groups WHERE context = ? AND id = ?').get(context, id) as Row | undefined;
  }

  byName(context: string, name: string): StoredGroup | undefined {
    return this.prepare('SELECT id, name, created, modified, version FROM groups WHERE context = ? AND name_lc = ?').get(context, fold(name)) as Row | undefined;
  }

  /** Registers each name that is no group yet; existing ones stay as they are. */
  ensure(context: string, names: Iterable<string>): void {
    const insert = this.prepare('INSERT INTO groups (context, id, name, name_lc, created, modified, version) VALUES (?, ?, ?, ?, ?, ?, 1) ON CONFLICT DO NOTHING');
    const now = new Date().toISOString();
    this.db.transaction(() => {
      for (const name of names) insert.run(context, randomUUID(), name, fold(name), now, now);
    })();
  }

  create(context: string, name: string): StoredGroup {
    const now = new Date().toISOString();
    const id = randomUUID();
    const changes = this.prepare('INSERT INTO groups (context, id, name, name_lc, created, modified, version) VALUES (?, ?, ?, ?, ?, ?, 1) ON CONFLICT DO NOTHING').run(context, id, name, fold(name), now, now).changes;
    if (changes === 0) throw new Conflict('a group of this displayName exists');
    return this.get(context, id)!;
  }

  /** A new name and/or a new version (members changed), on the version read; false when another write came first. */
  update(context: string, group: StoredGroup, name: string): boolean {
    try {
      return this.prepare('UPDATE groups SET name = ?, name_lc = ?, modified = ?, version = version + 1 WHERE context = ? AND id = ? AND version = ?').run(name, fold(name), new Date().toISOString(), context, group.id, group.version).changes === 1;
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new Conflict('a group of this displayName exists');
      throw error;
    }
  }

  delete(context: string, id: string): boolean {
    return this.prepare('DELETE FROM groups WHERE context = ? AND id = ?').run(context, id).changes === 1;
  }

  close(): void {
    this.db.close();
  }
}

/** Subjects read per page when members are listed or a role is renamed. */
const PAGE = 500;

export interface GroupWithMembers {
  group: StoredGroup;
  members: StoredSubject[];
}

export interface GroupsDeps {
  store(): GroupStore;
  subjects: SubjectService;
  subjectOperations: SubjectOperations;
  /** Every member's change is decided as an UPDATE of that subject (SPEC 6, 14). */
  decisions: Decisions;
}

/** The groups of every context, over the store and the subjects. */
export class ScimGroups {
  constructor(private readonly deps: GroupsDeps) {}

  /**
   * The context's groups as they are now: every role a subject holds (the subject store's own
   * query of the distinct roles, folded) and the definition's default roles, with the groups made
   * over SCIM. A role seen for the first time gets its stable id here, kept from then on; its
   * spelling is a holder's (roles are held exactly; groups are named case-insensitively).
   */
  async list(contextId: string): Promise<StoredGroup[]> {
    const store = this.deps.store();
    const { config, store: subjects } = this.deps.subjects.context(contextId);
    const defaults = valuesOf(config.definition.attributes[ROLES_ATTRIBUTE]?.default);
    const held = new Set([...defaults.map(fold), ...(await subjects.distinctValues(contextId, ROLES_ATTRIBUTE))]);
    const groups = store.list(contextId);
    for (const group of groups) held.delete(fold(group.name));
    if (held.size === 0) return groups;
    const spellings = await Promise.all([...held].map((folded) => this.spelling(contextId, folded, defaults)));
    store.ensure(contextId, spellings);
    return store.list(contextId);
  }

  /** How a role first seen folded is written: a default role's spelling, else a holder's. */
  private async spelling(contextId: string, folded: string, defaults: readonly string[]): Promise<string> {
    const given = defaults.find((role) => fold(role) === folded);
    if (given !== undefined) return given;
    const tree: FilterNode = { op: 'eq', attr: ROLES_ATTRIBUTE, value: folded };
    const [holder] = (await this.deps.subjects.search(contextId, { tree, offset: 0, quantity: 1 })).results;
    return valuesOf(holder?.attributes[ROLES_ATTRIBUTE]).find((role) => fold(role) === folded) ?? folded;
  }

  async get(contextId: string, id: string): Promise<StoredGroup> {
    const group = this.deps.store().get(contextId, id);
    if (!group) throw new NotFound(`group ${id} not found`);
    return group;
  }

  /** The name of a group id, for the users' `groups.value` filter (undefined: no such group). */
  nameOf(contextId: string, id: string): string | undefined {
    return this.deps.store().get(contextId, id)?.name;
  }

  /** Every subject holding the role, a page at a time from the store's own query. */
  async members(contextId: string, name: string): Promise<StoredSubject[]> {
    const tree: FilterNode = { op: 'eq', attr: ROLES_ATTRIBUTE, value: name };
    const members: StoredSubject[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.deps.subjects.search(contextId, { tree, offset, quantity: PAGE });
      // The filter compares case-insensitively; a role is held exactly.
      members.push(...page.results.filter((s) => valuesOf(s.attributes[ROLES_ATTRIBUTE]).includes(name)));
      if (page.results.length < PAGE) return members;
    }
  }

  /** The groups a subject is a member of (a User's `groups`). */
  async groupsOf(contextId: string, subject: StoredSubject): Promise<StoredGroup[]> {
    const roles = valuesOf(subject.attributes[ROLES_ATTRIBUTE]);
    if (!roles.length) return [];
    const store = this.deps.store();
    const found = roles.map((role) => store.byName(contextId, role));
    if (found.every((g) => g !== undefined)) return found as StoredGroup[];
    // A role given since (over REST, or a definition's default): registered now, in one write.
    store.ensure(contextId, roles);
    return roles.map((role) => store.byName(contextId, role)).filter((g): g is StoredGroup => g !== undefined);
  }

  async create(asker: Asker, contextId: string, name: string, memberIds: readonly string[]): Promise<StoredGroup> {
    checkName(name);
    // Every role held is a group already: a new group of a held role's name is a conflict.
    await this.list(contextId);
    const store = this.deps.store();
    if (store.byName(contextId, name)) throw new Conflict('a group of this displayName exists');
    const add = (roles: string[]) => (roles.includes(name) ? roles : [...roles, name]);
    const writes = await this.decideAll(asker, contextId, new Map(memberIds.map((id) => [id, add])), new Map());
    const group = store.create(contextId, name);
    try {
      await this.writeAll(asker, contextId, writes);
    } catch (error) {
      // The group and the members given are one request: a member that cannot be added undoes it.
      store.delete(contextId, group.id);
      throw error;
    }
    return store.get(contextId, group.id)!;
  }

  /**
   * A new name and members (PUT, PATCH): the members added get the role, those gone lose it, and a
   * new name renames the role on every member (one write per member for all three). `ifMatch` is the
   * group's ETag.
   */
  async change(asker: Asker, contextId: string, id: string, next: { name: string; members: readonly string[] }, ifMatch?: string): Promise<StoredGroup> {
    const store = this.deps.store();
    const group = store.get(contextId, id);
    if (!group) throw new NotFound(`group ${id} not found`);
    const version = expectedVersion(ifMatch);
    if (version !== undefined && version !== group.version) throw new PreconditionFailed('the group has changed');
    checkName(next.name);
    const adminRoles = this.deps.subjects.context(contextId).config.adminRoles;
    const renamed = next.name !== group.name;
    if (renamed && adminRoles.includes(group.name)) throw new AttributeNotWritable(`the group ${group.name} is an admin role of the context: it is not renamed over SCIM`);
    if (renamed) {
      // A role held under the new name is a group too (registered by the list): renaming onto it is a conflict.
      await this.list(contextId);
      const other = store.byName(contextId, next.name);
      if (other && other.id !== group.id) throw new Conflict('a group of this displayName exists');
    }
    const current = await this.members(contextId, group.name);
    const wanted = new Set(next.members);
    const held = new Map(current.map((s) => [s.uniqueId, s]));
    const rename = (roles: string[]) => (renamed ? [...new Set(roles.map((r) => (r === group.name ? next.name : r)))] : roles);
    const changes = new Map<string, (roles: string[]) => string[]>();
    for (const member of wanted) if (!held.has(member)) changes.set(member, (roles) => rename(roles.includes(group.name) ? roles : [...roles, group.name]));
    for (const member of held.keys()) changes.set(member, wanted.has(member) ? rename : (roles) => roles.filter((r) => r !== group.name));
    const writes = await this.decideAll(asker, contextId, changes, held);
    await this.writeAll(asker, contextId, writes);
    if (!store.update(contextId, group, next.name)) throw new PreconditionFailed('the group changed during this write; send it again');
    return store.get(contextId, id)!;
  }

  async delete(asker: Asker, contextId: string, id: string): Promise<void> {
    const store = this.deps.store();
    const group = store.get(contextId, id);
    if (!group) throw new NotFound(`group ${id} not found`);
    if (this.deps.subjects.context(contextId).config.adminRoles.includes(group.name)) throw new AttributeNotWritable(`the group ${group.name} is an admin role of the context: it is not deleted over SCIM`);
    const current = await this.members(contextId, group.name);
    const remove = (roles: string[]) => roles.filter((r) => r !== group.name);
    const writes = await this.decideAll(asker, contextId, new Map(current.map((s) => [s.uniqueId, remove])), new Map(current.map((s) => [s.uniqueId, s])));
    await this.writeAll(asker, contextId, writes);
    store.delete(contextId, id);
  }

  /**
   * Every member whose roles a group write changes, decided before anything is written: an UPDATE of
   * that subject, asked of the policy decision point as a REST write of it would be (before the
   * subject is read, so a refused id says nothing about its existence), then the adminRoles rule on
   * its roles before and after. One refusal refuses the whole group write. An unknown member is 400
   * invalidValue (nothing to give the role to). `known` holds the subjects already read (members).
   */
  private async decideAll(asker: Asker, contextId: string, changes: ReadonlyMap<string, (roles: string[]) => string[]>, known: ReadonlyMap<string, StoredSubject>): Promise<RoleWrite[]> {
    const writes: RoleWrite[] = [];
    const unchanged = (before: readonly string[], after: readonly string[]) => after.length === before.length && after.every((r, i) => r === before[i]);
    for (const [uniqueId, change] of changes) {
      let subject = known.get(uniqueId);
      // A member kept as it is (PATCH of another member) is not this write's: nothing to decide.
      if (subject && unchanged(valuesOf(subject.attributes[ROLES_ATTRIBUTE]), change([...valuesOf(subject.attributes[ROLES_ATTRIBUTE])]))) continue;
      await this.deps.decisions.authorize(asker, 'UPDATE', `contexts/${contextId}/subjects/${uniqueId}`);
      subject ??= await this.readMember(contextId, uniqueId);
      const before = valuesOf(subject.attributes[ROLES_ATTRIBUTE]);
      const after = change([...before]);
      if (unchanged(before, after)) continue;
      this.deps.subjectOperations.assertAdminRolesKept(asker.session, contextId, before, { [ROLES_ATTRIBUTE]: after });
      writes.push({ uniqueId, roles: after });
    }
    return writes;
  }

  /** The decided role changes, each a subject write through SubjectOperations (validation, audit, roles cache). */
  private async writeAll(asker: Asker, contextId: string, writes: readonly RoleWrite[]): Promise<void> {
    const actor: Actor = { session: asker.session, peer: asker.peer };
    for (const { uniqueId, roles } of writes) await this.deps.subjectOperations.update(actor, contextId, uniqueId, { attributes: { [ROLES_ATTRIBUTE]: roles } });
  }

  private async readMember(contextId: string, uniqueId: string): Promise<StoredSubject> {
    try {
      return await this.deps.subjects.read(contextId, uniqueId);
    } catch (error) {
      if (error instanceof NotFound) throw new InvalidRequest(`member ${uniqueId.slice(0, 256)} is no user of this context`, { extensions: { scimType: 'invalidValue' } });
      throw error;
    }
  }
}

/** One member's roles after a group write. */
interface RoleWrite {
  uniqueId: string;
  roles: string[];
}

function checkName(name: string): void {
  if (typeof name !== 'string' || name.trim() === '' || name.length > 256) throw new InvalidRequest('displayName is 1 to 256 characters', { extensions: { scimType: 'invalidValue' } });
}

/**
 * SCIM Groups ↔ a context's roles (SPEC 14). The groups are kept beside the context's subjects
 * (SubjectStore.groups: PostgreSQL's scim_groups shared by every core, the SQLite store's file, an
 * `ldap` store's groups.sqlite): a stable id assigned by svc, the displayName (the role), created,
 * modified and a version, so an empty group an identity provider creates before its members
 * persists. Every role a subject holds is a group too: each list asks the subject store for the
 * distinct roles held (its own query) and gives a role seen for the first time its id, kept from
 * then on, whichever transport gave the role; a role nobody holds is no group unless SCIM made or
 * changed it.
 *
 * Members are the subjects holding the role: adding or removing one writes that subject's `roles`
 * through SubjectOperations (validation, audit, roles cache, the provisioner's adminRoles rule); a
 * rename renames the role on every member; a delete takes it from every member. Every member a
 * write changes is first decided by the policy decision point as an UPDATE of that subject, with the
 * adminRoles rule, all before the first is written: one refusal refuses the whole write. A role named in the
 * context's `adminRoles` is neither renamed nor deleted over SCIM (400 mutability).
 */
import { AttributeNotWritable, Conflict, InvalidRequest, NotFound, PreconditionFailed } from '../../../common/src/errors';
import type { FilterNode } from '../subjects/filter/ast';
import { fold, valuesOf, type StoredSubject } from '../subjects/subject';
import { groupNameProblem, type StoredGroup, type SubjectGroups } from '../subjects/subject-groups';
import { expectedVersion, ROLES_ATTRIBUTE, type Actor, type SubjectOperations } from '../subjects/subject-operations';
import type { SubjectService } from '../subjects/subject-service';
import type { Asker, Decisions } from '../policy/decisions';

export type { StoredGroup };

/** Subjects read per page when members are listed or a role is renamed. */
const PAGE = 500;

export interface GroupsDeps {
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
    const groups = this.groupsIn(contextId);
    const { config, store: subjects } = this.deps.subjects.context(contextId);
    const defaults = valuesOf(config.definition.attributes[ROLES_ATTRIBUTE]?.default);
    const held = new Set([...defaults.map(fold), ...(await subjects.distinctValues(contextId, ROLES_ATTRIBUTE))]);
    let all = await groups.list(contextId);
    const named = new Set(all.map((g) => fold(g.name)));
    const unseen = [...held].filter((folded) => !named.has(folded));
    if (unseen.length) {
      await groups.ensure(contextId, await Promise.all(unseen.map((folded) => this.spelling(contextId, folded, defaults))));
      all = await groups.list(contextId);
    }
    // A role nobody holds any more is no group, unless SCIM made or changed it (its id stays for when the role comes back).
    return all.filter((g) => g.kept || held.has(fold(g.name)));
  }

  /** The groups of a context's subject store (SPEC 14: beside the subjects, shared where they are). */
  private groupsIn(contextId: string): SubjectGroups {
    return this.deps.subjects.context(contextId).store.groups;
  }

  /** Whether a group is one now: SCIM's own, or its role is held (or a default role). */
  private async listed(contextId: string, group: StoredGroup): Promise<boolean> {
    if (group.kept) return true;
    const { config } = this.deps.subjects.context(contextId);
    if (valuesOf(config.definition.attributes[ROLES_ATTRIBUTE]?.default).some((role) => fold(role) === fold(group.name))) return true;
    const tree: FilterNode = { op: 'eq', attr: ROLES_ATTRIBUTE, value: group.name };
    return (await this.deps.subjects.search(contextId, { tree, offset: 0, quantity: 1 })).total > 0;
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
    const group = await this.groupsIn(contextId).get(contextId, id);
    if (!group || !(await this.listed(contextId, group))) throw new NotFound(`group ${id} not found`);
    return group;
  }

  /** The groups of users' roles for one request (User answers' `groups`): each role looked up once. */
  lookup(contextId: string): GroupLookup {
    return new GroupLookup(this.groupsIn(contextId), contextId);
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

  async create(asker: Asker, contextId: string, name: string, memberIds: readonly string[]): Promise<StoredGroup> {
    checkName(name);
    // Every role held is a group already (registered by the list): a new group of its name is a conflict.
    await this.list(contextId);
    const groups = this.groupsIn(contextId);
    const [same] = await groups.byNames(contextId, [name]);
    if (same && (await this.listed(contextId, same))) throw new Conflict('a group of this displayName exists');
    const add = (roles: string[]) => (roles.includes(name) ? roles : [...roles, name]);
    const writes = await this.decideAll(asker, contextId, new Map(memberIds.map((id) => [id, add])), new Map());
    // A role nobody holds any more keeps its id: made again over SCIM, it is that group, now SCIM's own.
    let group: StoredGroup;
    if (same) {
      if (!(await groups.update(contextId, same, name))) throw new PreconditionFailed('the group changed during this write; send it again');
      group = (await groups.get(contextId, same.id))!;
    } else {
      group = await groups.create(contextId, name);
    }
    try {
      await this.writeAll(asker, contextId, writes);
    } catch (error) {
      // The group and the members given are one request: a member that cannot be added undoes it.
      if (!same) await groups.delete(contextId, group.id);
      throw error;
    }
    return (await groups.get(contextId, group.id))!;
  }

  /**
   * A new name and members (PUT, PATCH): the members added get the role, those gone lose it, and a
   * new name renames the role on every member (one write per member for all three). `ifMatch` is the
   * group's ETag.
   */
  async change(asker: Asker, contextId: string, id: string, next: { name: string; members: readonly string[] }, ifMatch?: string): Promise<StoredGroup> {
    const groups = this.groupsIn(contextId);
    const group = await this.get(contextId, id);
    const version = expectedVersion(ifMatch);
    if (version !== undefined && version !== group.version) throw new PreconditionFailed('the group has changed');
    checkName(next.name);
    const adminRoles = this.deps.subjects.context(contextId).config.adminRoles;
    const renamed = next.name !== group.name;
    if (renamed && adminRoles.includes(group.name)) throw new AttributeNotWritable(`the group ${group.name} is an admin role of the context: it is not renamed over SCIM`);
    if (renamed) {
      // A role held under the new name is a group too (registered by the list): renaming onto it is a conflict.
      await this.list(contextId);
      const [other] = await groups.byNames(contextId, [next.name]);
      if (other && other.id !== group.id) {
        if (await this.listed(contextId, other)) throw new Conflict('a group of this displayName exists');
        // A role nobody holds any more gives its name up to the rename.
        await groups.delete(contextId, other.id);
      }
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
    if (!(await groups.update(contextId, group, next.name))) throw new PreconditionFailed('the group changed during this write; send it again');
    return (await groups.get(contextId, id))!;
  }

  async delete(asker: Asker, contextId: string, id: string): Promise<void> {
    const group = await this.get(contextId, id);
    if (this.deps.subjects.context(contextId).config.adminRoles.includes(group.name)) throw new AttributeNotWritable(`the group ${group.name} is an admin role of the context: it is not deleted over SCIM`);
    const current = await this.members(contextId, group.name);
    const remove = (roles: string[]) => roles.filter((r) => r !== group.name);
    const writes = await this.decideAll(asker, contextId, new Map(current.map((s) => [s.uniqueId, remove])), new Map(current.map((s) => [s.uniqueId, s])));
    await this.writeAll(asker, contextId, writes);
    await this.groupsIn(contextId).delete(contextId, id);
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
  const problem = groupNameProblem(name);
  if (problem !== undefined) throw new InvalidRequest(problem, { extensions: { scimType: 'invalidValue' } });
}

/**
 * The groups of users' roles for one request: a page of users costs one lookup of the roles not
 * met yet (and one registration of those never seen), not one per user and role.
 */
export class GroupLookup {
  private readonly known = new Map<string, StoredGroup>();

  constructor(
    private readonly groups: SubjectGroups,
    private readonly contextId: string,
  ) {}

  /** Looks up (and registers, when first seen) every role of these subjects not met yet. */
  async load(subjects: readonly StoredSubject[]): Promise<void> {
    const missing = new Map<string, string>();
    for (const subject of subjects) for (const role of valuesOf(subject.attributes[ROLES_ATTRIBUTE])) if (!this.known.has(fold(role))) missing.set(fold(role), role);
    if (missing.size === 0) return;
    const names = [...missing.values()];
    let found = await this.groups.byNames(this.contextId, names);
    if (found.length < missing.size) {
      // A role given since the last list (over REST, or a definition's default): its id is assigned now.
      const have = new Set(found.map((g) => fold(g.name)));
      await this.groups.ensure(this.contextId, names.filter((name) => !have.has(fold(name))));
      found = await this.groups.byNames(this.contextId, names);
    }
    for (const group of found) this.known.set(fold(group.name), group);
  }

  /** The groups a subject is a member of (a User's `groups`). */
  async of(subject: StoredSubject): Promise<StoredGroup[]> {
    await this.load([subject]);
    // Roles spelled in two cases are one group.
    const groups = new Map<string, StoredGroup>();
    for (const role of valuesOf(subject.attributes[ROLES_ATTRIBUTE])) {
      const group = this.known.get(fold(role));
      if (group) groups.set(group.id, group);
    }
    return [...groups.values()];
  }
}

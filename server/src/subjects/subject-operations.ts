/**
 * The subject operations as every transport performs them after authorization (the REST handlers
 * and the SOAP service): who writes, the registrant's path, the audit line, the ETag. Knows no HTTP:
 * a transport reads its own body and headers, calls these, and writes its own answer.
 */
import { AttributeNotWritable, InvalidAttributes, InvalidRequest, MalformedBody, PreconditionFailed, StepUpRequired } from '../../../common/src/errors';
import { principalName } from '../../../common/src/principal-name';
import type { WireValue } from '../../../common/src/wire/xml';
import { partiesOf } from '../audit';
import type { Audit } from '../audit';
import type { SvcConfig } from '../config/types';
import type { Registrations } from '../flows/registration';
import type { VerificationSent } from '../mail/email-flows';
import { MAIL_ATTRIBUTE } from '../config/references';
import { holdsAdminRole } from '../policy/admin-roles';
import type { Principal, Session } from '../sessions/session';
import type { Writer } from './attributes';
import type { FilterNode } from './filter/ast';
import { valuesOf, type StoredSubject, type Subject } from './subject';
import type { SubjectService } from './subject-service';

/** Subjects per store read of an export: large enough to cost few reads, small enough to keep memory flat. */
const EXPORT_PAGE = 500;

/** Who performs an operation: the session it was authorized for, and where it came from. */
export interface Actor {
  session: Session;
  /** The peer address, after `trustProxy`. */
  peer: string;
}

export interface SubjectInput {
  uniqueId?: unknown;
  attributes: Record<string, unknown>;
}

/** The members of a subject document (`{"subject":{"uniqueId":…,"attributes":{…}}}`'s inner object). */
export function subjectInput(subject: WireValue | undefined): SubjectInput {
  if (!subject || typeof subject !== 'object' || Array.isArray(subject)) throw new MalformedBody('subject must be an object');
  const unknown = Object.keys(subject).filter((k) => k !== 'uniqueId' && k !== 'attributes');
  if (unknown.length) throw new InvalidAttributes('unknown members in subject', { errors: unknown.map((k) => ({ path: `subject.${k}`, message: 'unknown member' })) });
  const attributes = subject.attributes ?? {};
  if (typeof attributes !== 'object' || Array.isArray(attributes)) throw new MalformedBody('subject.attributes must be an object');
  return { uniqueId: subject.uniqueId, attributes: attributes as Record<string, unknown> };
}

/** A subject's entity tag: its version, quoted. */
export const etagOf = (subject: StoredSubject): string => `"${subject.version}"`;

/** The version an `If-Match` value names; undefined for none or `*`. */
export function expectedVersion(ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined || ifMatch.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"(\d{1,15})"\s*$/.exec(ifMatch);
  if (!match) throw new PreconditionFailed('If-Match must be one ETag of this subject');
  return Number(match[1]);
}

/** The authenticator name of a SCIM client's one-request session (SPEC 14): its service subject writes as an admin of its context. */
export const SCIM_AUTHENTICATOR = 'scim';

/** Whether a session is a SCIM provisioning client's (SPEC 14). */
export const isScimSession = (session: Session): boolean => session.type === 'USER' && session.authenticator === SCIM_AUTHENTICATOR;

/** The attribute policies and groups read a principal's roles from (SPEC 6). */
export const ROLES_ATTRIBUTE = 'roles';

export interface SearchInput {
  search?: string;
  filter?: string;
  /** A filter already in the store's form (the SCIM transport's translation); instead of `filter`. */
  tree?: FilterNode;
  sort?: string;
  order?: string;
  offset?: number;
  quantity?: number;
}

/** A result of SEARCH; `status` only with include=status, for a caller who may READ its `…/lockout`. */
export interface SearchResult extends Subject {
  status?: { disabled: boolean; locked: boolean; lockedUntil: string | null };
}

export interface SearchAnswer {
  results: SearchResult[];
  offset: number;
  quantity: number;
  total: number;
}

export interface SubjectOperationsDeps {
  subjects: SubjectService;
  registrations: Registrations;
  audit: Audit;
  /** A principal's `roles` (Core.rolesOf: cached per subject, dropped on every write). */
  rolesOf(session: Session): Promise<readonly string[]>;
  config(): SvcConfig;
  /** Whether a subject has a confirmed second factor (SecondFactors.has). */
  hasFactor(principal: Principal): boolean;
}

/** The subject operations, after authorization, for every transport. */
export class SubjectOperations {
  constructor(private readonly deps: SubjectOperationsDeps) {}

  /**
   * Who writes decides which attributes may be written (SPEC section 3, mutability): SYSTEM, and a
   * principal of the context holding one of its `adminRoles` (section 6), write as its admins.
   */
  private async writerOf(session: Session, contextId: string, subjectId?: string): Promise<Writer> {
    if (session.type === 'SYSTEM') return 'admin';
    if (session.type === 'ANON' || session.type === 'INTERNAL' || !session.principal) return 'registrant';
    // SPEC 14: a SCIM client's service subject counts as an admin of its context (its adminRoles aside: assertAdminRolesKept).
    if (isScimSession(session) && session.principal.contextId === contextId) return 'admin';
    if (session.principal.contextId === contextId && holdsAdminRole(this.deps.config(), contextId, await this.deps.rolesOf(session))) return 'admin';
    return subjectId !== undefined && session.principal.uniqueId === subjectId ? 'self' : 'registrant';
  }

  /**
   * CREATE: an anonymous caller's is a registration (its throttle and the registrant's attributes);
   * in a context that verifies addresses, its answer is VERIFICATION_SENT, whatever happened (SPEC 16).
   */
  async create(actor: Actor, contextId: string, input: SubjectInput): Promise<StoredSubject | VerificationSent> {
    const writer = await this.writerOf(actor.session, contextId);
    const { session, peer } = actor;
    if (writer === 'registrant') return this.deps.registrations.register({ contextId, uniqueId: input.uniqueId, attributes: input.attributes, session, peer });
    this.assertAdminRolesKept(session, contextId, [], input.attributes);
    const created = await this.deps.subjects.create(contextId, input.uniqueId, input.attributes, writer);
    this.deps.audit.record({ ...partiesOf(session, peer), event: 'subject_write', outcome: 'success', reason: 'create', subject: principalName({ contextId, uniqueId: created.uniqueId }) });
    return created;
  }

  async update(actor: Actor, contextId: string, subjectId: string, input: SubjectInput, ifMatch?: string): Promise<StoredSubject> {
    if (input.uniqueId !== undefined && input.uniqueId !== subjectId) {
      throw new InvalidRequest('uniqueId cannot be changed', { errors: [{ path: 'subject.uniqueId', message: 'differs from the path' }] });
    }
    const version = expectedVersion(ifMatch);
    this.assertPasswordWritable(actor.session, contextId, subjectId, input);
    const writer = await this.writerOf(actor.session, contextId, subjectId);
    if (writer === 'self' && this.deps.config().mail && Object.hasOwn(input.attributes, MAIL_ATTRIBUTE)) {
      // SPEC 16: one's own address changes only through a link mailed to the new one.
      const current = await this.deps.subjects.read(contextId, subjectId);
      if (JSON.stringify(current.attributes[MAIL_ATTRIBUTE] ?? null) !== JSON.stringify(input.attributes[MAIL_ATTRIBUTE])) {
        throw new AttributeNotWritable(`change your address with PUT …/contexts/${contextId}/subjects/${subjectId}/mail {"mail","password"}: a link goes to the new address`, {
          errors: [{ path: `subject.attributes.${MAIL_ATTRIBUTE}`, message: 'changed through …/mail' }],
        });
      }
    }
    if (isScimSession(actor.session) && Object.hasOwn(input.attributes, ROLES_ATTRIBUTE)) {
      const current = await this.deps.subjects.read(contextId, subjectId);
      this.assertAdminRolesKept(actor.session, contextId, valuesOf(current.attributes[ROLES_ATTRIBUTE]), input.attributes);
    }
    const updated = await this.deps.subjects.update(contextId, subjectId, input.attributes, writer, version);
    this.deps.audit.record({ ...partiesOf(actor.session, actor.peer), event: 'subject_write', outcome: 'success', reason: 'update', subject: principalName({ contextId, uniqueId: subjectId }), attributes: Object.keys(input.attributes) });
    return updated;
  }

  /**
   * SPEC 14: a SCIM client may not give or take a role named in its context's `adminRoles` (400
   * mutability): provisioning never makes or unmakes an admin. Other callers are not concerned.
   * SCIM's group writes ask it for every member before any is written.
   */
  assertAdminRolesKept(session: Session, contextId: string, before: readonly string[], attributes: Record<string, unknown>): void {
    if (!isScimSession(session) || !Object.hasOwn(attributes, ROLES_ATTRIBUTE)) return;
    const given = attributes[ROLES_ATTRIBUTE];
    const after = Array.isArray(given) ? given.filter((r): r is string => typeof r === 'string') : typeof given === 'string' ? [given] : [];
    const adminRoles = this.deps.subjects.context(contextId).config.adminRoles;
    const changed = adminRoles.filter((role) => before.includes(role) !== after.includes(role));
    if (changed.length) {
      throw new AttributeNotWritable(`a provisioning client cannot give or take the role ${changed.join(', ')} (the context's adminRoles)`, {
        errors: [{ path: `subject.attributes.${ROLES_ATTRIBUTE}`, message: 'an admin role' }],
        extensions: { attributes: [ROLES_ATTRIBUTE] },
      });
    }
  }

  /**
   * SPEC 15: the password of a subject with a confirmed second factor is written (REST, SOAP) only
   * by SYSTEM or from a level 3 session, so a password alone cannot take over such an account.
   */
  private assertPasswordWritable(session: Session, contextId: string, subjectId: string, input: SubjectInput): void {
    const attribute = this.deps.subjects.context(contextId).config.definition.password;
    if (attribute === undefined || !Object.hasOwn(input.attributes, attribute) || session.type === 'SYSTEM' || session.level >= 3) return;
    if (this.deps.hasFactor({ contextId, uniqueId: subjectId })) throw new StepUpRequired(this.deps.config().settings.denyStatus, 'Setting the password of a subject with a second factor needs a session with your own second factor.');
  }

  async delete(actor: Actor, contextId: string, subjectId: string): Promise<void> {
    await this.deps.subjects.delete(contextId, subjectId);
    this.deps.audit.record({ ...partiesOf(actor.session, actor.peer), event: 'subject_write', outcome: 'success', reason: 'delete', subject: principalName({ contextId, uniqueId: subjectId }) });
  }

  /**
   * Every subject a SEARCH selects, a page at a time (the CSV export: memory stays one page whatever
   * the context's size). Without free text, filter or sort, the store's keyset pages (uniqueId order);
   * otherwise the search's own pages by offset, so a write meanwhile may move a subject across a page
   * boundary, as it would for a client paging by hand.
   */
  async *pages(contextId: string, input: Omit<SearchInput, 'offset' | 'quantity'>, pageSize = EXPORT_PAGE): AsyncGenerator<Subject[]> {
    const plain = !input.search?.trim() && input.filter === undefined && input.tree === undefined && input.sort === undefined && input.order === undefined;
    if (plain) {
      const { store } = this.deps.subjects.context(contextId);
      for (let after: string | undefined; ; ) {
        const page = await store.list(contextId, after, pageSize);
        if (page.length) yield page.map((s) => this.deps.subjects.view(contextId, s));
        if (page.length < pageSize) return;
        after = page[page.length - 1].uniqueId;
      }
    }
    for (let offset = 0; ; offset += pageSize) {
      const page = await this.deps.subjects.search(contextId, { ...input, offset, quantity: pageSize });
      if (page.results.length) yield page.results.map((s) => this.deps.subjects.view(contextId, s));
      if (page.results.length < pageSize) return;
    }
  }

  /** SEARCH with the configured default and maximum page size. */
  async search(contextId: string, input: SearchInput): Promise<SearchAnswer> {
    const { defaultQuantity, maxQuantity } = this.deps.config().settings.search;
    const offset = input.offset ?? 0;
    const quantity = Math.min(input.quantity ?? defaultQuantity, maxQuantity);
    const page = await this.deps.subjects.search(contextId, { search: input.search, filter: input.filter, tree: input.tree, sort: input.sort, order: input.order, offset, quantity });
    return { results: page.results.map((s) => this.deps.subjects.view(contextId, s)), offset, quantity, total: page.total };
  }
}

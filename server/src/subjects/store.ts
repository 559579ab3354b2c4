import type { StoredGroup, SubjectGroups } from './subject-groups';
import { Conflict } from '../../../common/src/errors';
import type { FilterNode } from './filter/ast';
import type { SubjectEvents } from './subject-events';
import { fold, valuesOf, type Attributes, type StoredSubject } from './subject';
import type { SvcConfig } from '../config/types';

/**
 * What a store must keep for one write: the subject, the uniqueness keys it claims (login names and
 * unique attribute values, already folded) and the folded values to index for search. The service
 * computes both from the context's definition, so stores know nothing of definitions.
 */
export interface SubjectWrite {
  uniqueId: string;
  attributes: Attributes;
  keys: string[];
  indexed: Array<[name: string, foldedValue: string]>;
}

export interface SearchQuery {
  filter?: FilterNode;
  /** Free text: a folded prefix of any value of these attributes. */
  text?: { prefix: string; attributes: string[] };
  /** The order (SPEC 3): absent, uniqueId ascending; ties are always broken by uniqueId, in the same direction. */
  sort?: SearchSort;
  offset: number;
  quantity: number;
}

/**
 * `uniqueId` (exact, code-point order) or a search attribute: a subject's key is its least folded
 * value of it; a subject without one sorts after every value (RFC 2891's rule for a missing
 * attribute, what a directory's server-side sort does), so before every value when descending.
 */
export interface SearchSort {
  attribute: string;
  descending: boolean;
}

/**
 * The free text's rule on one subject, what every store selects: a value of one of the attributes
 * (the id for `uniqueId`) whose folded form starts with the prefix.
 */
export function matchesSearchText(text: NonNullable<SearchQuery['text']>, subject: StoredSubject): boolean {
  return text.attributes.some((name) => (name === 'uniqueId' ? [subject.uniqueId] : valuesOf(subject.attributes[name])).some((v) => fold(v).startsWith(text.prefix)));
}

export interface SearchPage {
  results: StoredSubject[];
  total: number;
}

/** A subject as `svc import` writes it: its timestamps kept (ISO 8601), its version new. */
export interface ImportedSubject {
  write: SubjectWrite;
  created: string;
  modified: string;
}

export interface ImportOptions {
  /** Replace a subject whose uniqueId exists (its version goes up); without it, that is a Conflict. */
  replace: boolean;
  /** Called with the number of subjects written so far, now and then. */
  onProgress?: (done: number) => void;
  /**
   * SCIM's groups of the export (SPEC 14), written with the subjects, all or none of both, by the
   * rule of `replace` (subject-groups.ts, planGroupImport); absent or empty: the groups stay as they are.
   */
  groups?: readonly StoredGroup[];
}

declare const passwordTargetBrand: unique symbol;

/**
 * Where a store that keeps passwords checks one subject's (ldap: the DN of the entry its search
 * found, whatever that entry's RDN). Opaque: only that store makes one, only its `verify` reads it,
 * so the authenticators learn nothing of the directory.
 */
export interface PasswordTarget {
  readonly [passwordTargetBrand]: true;
}

/** A subject a login key designates and, from a store that keeps passwords, where its password is checked. */
export interface FoundSubject {
  subject: StoredSubject;
  passwordTarget?: PasswordTarget;
}

/**
 * Passwords a store keeps outside svc (an LDAP directory, SPEC 13): checked and written there, never
 * hashed by svc. `subject-service.ts` and the password endpoints go through it when a store has it.
 */
export interface DirectoryPasswords {
  /**
   * Where the subject's password is checked, looked up now (an own password change's old password;
   * a login has it from its lookup, `SubjectStore.findLogin`); undefined when there is no such subject.
   */
  target(context: string, uniqueId: string): Promise<PasswordTarget | undefined>;
  /** Whether the directory accepts `password` at `target` now (its policy and lockout included). */
  verify(target: PasswordTarget, password: string): Promise<boolean>;
  /** The cost of a refused check, spent without checking anything (uniform cost of login failures). */
  spend(): Promise<void>;
  /** Writes a new password; the directory's policy refusing it is WeakPassword with its reason. */
  set(context: string, uniqueId: string, password: string): Promise<void>;
  /**
   * A value of the subject's entry, read now, that the directory changes whenever the password
   * changes, however it is changed (through svc or with the directory's own tools): what a reset
   * link is bound to (SPEC 16), since svc cannot read the password's hash. It may change on other
   * writes too (a link is then voided by them as well). Undefined when there is no such subject, or
   * the directory shows no such value (nothing to bind a link to: none is usable).
   */
  credentialVersion(context: string, uniqueId: string): Promise<string | undefined>;
}

/**
 * One interface, one file per variant (memory-store.ts, sqlite-store.ts, postgres-store.ts, ldap-store.ts).
 * Uniqueness of `keys` is enforced by the store itself (Conflict); `expectedVersion` gives If-Match
 * (PreconditionFailed). test/subjects/store-contract.ts is the behaviour every variant must have.
 */
export interface SubjectStore {
  readonly kind: string;
  /** Present when the store keeps passwords itself (ldap): svc then stores no password hash. */
  readonly passwords?: DirectoryPasswords;
  /** Prepares the store before serving (PostgreSQL: the schema check or migration); stores that need nothing leave it out. */
  open?(): Promise<void>;
  /** Why an opened store cannot run under a reloaded configuration (LDAP: maxFailures against pwdMaxFailure); none: it can. */
  reloadProblems?(config: SvcConfig): string[];
  create(context: string, write: SubjectWrite): Promise<StoredSubject>;
  get(context: string, uniqueId: string): Promise<StoredSubject | undefined>;
  /** Whether the subject exists, without reading it (the check's `exists`). */
  exists(context: string, uniqueId: string): Promise<boolean>;
  /** The subject that claims a folded key (a login name), if any. */
  findByKey(context: string, key: string): Promise<StoredSubject | undefined>;
  /**
   * `findByKey` for a login, with where the subject's password is checked: a store that keeps
   * passwords (ldap) answers both from one lookup. Stores without it: `findByKey`, no target.
   */
  findLogin?(context: string, key: string): Promise<FoundSubject | undefined>;
  update(context: string, write: SubjectWrite, expectedVersion?: number): Promise<StoredSubject>;
  delete(context: string, uniqueId: string): Promise<boolean>;
  search(context: string, query: SearchQuery): Promise<SearchPage>;
  /** Up to `limit` subjects ordered by uniqueId, after `after` (a keyset page: what export walks). */
  list(context: string, after: string | undefined, limit: number): Promise<StoredSubject[]>;
  /** Writes all of `subjects` (and `options.groups`) or, on any error, none of them (`svc import`). */
  importSubjects(context: string, subjects: ImportedSubject[], options: ImportOptions): Promise<void>;
  count(context: string): Promise<number>;
  /**
   * The distinct values of `attribute` (a searchable one) among the context's subjects, folded
   * (subject.ts's fold), each once, in code-point order: from the store's own query (SQL: a loose
   * scan of the values' index, one probe per distinct value). SCIM's groups are the roles held.
   */
  distinctValues(context: string, attribute: string): Promise<string[]>;
  /** SCIM's groups (SPEC 14), beside the subjects where they are shared (an LDAP store's: svc's own groups.sqlite). */
  readonly groups: SubjectGroups;
  /** The subjects' events (SPEC 10.4), beside the subjects (an LDAP store's: svc's own events.sqlite); absent where a store keeps none. */
  readonly events?: SubjectEvents;
  /** True when the backing store answers (for /ready). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** `unique:mail:x@y` → `mail`; `login:x` → `login name`: a Conflict never echoes another subject's value. */
export function describeKey(key: string): string {
  const [kind, name] = key.split(':');
  return kind === 'unique' ? name : 'login name';
}

/** The Conflict of a write whose uniqueness keys are taken by another subject. */
export function keysTaken(keys: string[]): Conflict {
  return new Conflict('a unique value is already taken', { extensions: { conflicts: [...new Set(keys.map(describeKey))] } });
}

/**
 * An import's error about one of its subjects, naming it (`extensions.uniqueId`) so that `svc
 * import` can point at the line; an error that is not a Conflict passes unchanged.
 */
export function importConflict(uniqueId: string, error: unknown): unknown {
  if (!(error instanceof Conflict)) return error;
  const detail = error.message.startsWith(`subject ${uniqueId} `) ? error.message : `subject ${uniqueId}: ${error.message}`;
  return new Conflict(detail, { extensions: { ...error.extensions, uniqueId } });
}

import { setTimeout as delay } from 'node:timers/promises';
import { Conflict, InvalidAttributes, InvalidRequest, NotFound, PreconditionFailed } from '../../../common/src/errors';
import type { ContextConfig } from '../config/types';
import { checkPasswordPolicy } from '../passwords/password-policy';
import type { PasswordHasher } from '../passwords/password-hasher';
import { checkAttributes, holdsControlCharacter, missingRequired, readable, type AttributeInput, type Writer } from './attributes';
import type { FilterNode } from './filter/ast';
import { parseFilter } from './filter/parse';
import type { DirectoryPasswords, FoundSubject, SearchPage, SearchSort, SubjectStore, SubjectWrite } from './store';
import { fold, valuesOf, type Attributes, type StoredSubject, type Subject } from './subject';
import type { SubjectEventPage } from './subject-events';
import { assertSubjectId } from './subject-id';

export interface SearchParams {
  search?: string;
  filter?: string;
  /** A filter already in the store's form (the SCIM transport's translation, SPEC 14): used instead of `filter`. */
  tree?: FilterNode;
  /** `uniqueId` or one of the context's search attributes (SPEC 3); absent: uniqueId. */
  sort?: string;
  /** `asc` (the default) or `desc`. */
  order?: string;
  offset: number;
  quantity: number;
}

/** The order a SEARCH asks for, checked against the context: anything else is 400 invalid_request naming the parameter. */
export function searchSort(config: ContextConfig, sort: string | undefined, order: string | undefined): SearchSort | undefined {
  if (order !== undefined && order !== 'asc' && order !== 'desc') {
    throw new InvalidRequest('order must be asc or desc', { errors: [{ path: 'order', message: 'not asc or desc' }] });
  }
  if (sort === undefined) return order === 'desc' ? { attribute: 'uniqueId', descending: true } : undefined;
  if (sort !== 'uniqueId' && !config.searchAttributes.includes(sort)) {
    throw new InvalidRequest(`sort must be uniqueId or a search attribute of this context (${config.searchAttributes.join(', ')})`, { errors: [{ path: 'sort', message: 'not a search attribute' }] });
  }
  return { attribute: sort, descending: order === 'desc' };
}

/**
 * What happened to a subject. `deleted`, `disabled` and `password` end its sessions (SPEC section 4,
 * "Lifetimes"); every change invalidates what was derived from the subject (its roles).
 */
/** A context's configuration and the store its subjects are in. */
export interface ContextEntry {
  config: ContextConfig;
  store: SubjectStore;
}

export type SubjectChange = 'updated' | 'deleted' | 'disabled' | 'password';
export type SubjectChangeListener = (context: string, uniqueId: string, change: SubjectChange) => Promise<void>;

/** Merges of one update without If-Match before it gives up with 412 (other writers kept winning). */
const MAX_MERGES = 10;
/** A lost race waits a random time below 2^attempt × this many milliseconds (at most 128) before merging again. */
const MERGE_BACKOFF_MS = 2;

/** Normalises a forgotten-password answer before hashing or comparing: case and spaces. */
export const normaliseAnswer = (answer: string): string => fold(answer).replace(/\s+/g, ' ').trim();

/**
 * The subject operations, free of HTTP: validation against the context definition, hashing of
 * secrets, uniqueness keys, and the store. Authorization happened before a call arrives here.
 */
export class SubjectService {
  private readonly listeners: SubjectChangeListener[] = [];

  constructor(
    private readonly contexts: ReadonlyMap<string, ContextEntry>,
    private readonly hasher: PasswordHasher,
    private readonly reservedIds: () => ReadonlySet<string>,
  ) {}

  /**
   * Why a stored hash may not be written as it is (its cost is above `passwords.maxCost`), or
   * undefined; PhcFormatError when it is no PHC string. svc import asks it of every hash it reads.
   */
  hashCostProblem(phc: string): string | undefined {
    return this.hasher.costProblem(phc);
  }

  onChange(listener: SubjectChangeListener): void {
    this.listeners.push(listener);
  }

  context(id: string): ContextEntry {
    const found = this.contexts.get(id);
    if (!found) throw new NotFound(`context ${id} not found`);
    return found;
  }

  /** Whether `id` is one no context may create (`reservedIds`, the system user's id). */
  isReserved(id: string): boolean {
    return this.reservedIds().has(fold(id));
  }

  /** The subject as a reader may see it, write-only attributes removed. */
  view(contextId: string, subject: StoredSubject): Subject {
    return { uniqueId: subject.uniqueId, attributes: readable(this.context(contextId).config, subject.attributes) };
  }

  async create(contextId: string, uniqueId: unknown, input: AttributeInput, writer: Writer): Promise<StoredSubject> {
    const { config, store } = this.context(contextId);
    const id = assertSubjectId(uniqueId, 'subject.uniqueId');
    if (this.isReserved(id)) throw new Conflict('this id is reserved');
    const checked = checkAttributes(config, input, writer, true);
    const attributes: Attributes = {};
    for (const [name, definition] of Object.entries(config.definition.attributes)) {
      if (definition.default !== undefined) attributes[name] = definition.default;
    }
    Object.assign(attributes, checked);
    const missing = missingRequired(config, attributes);
    if (missing.length) throw new InvalidAttributes('required attributes are missing', { errors: missing });
    const password = await this.protectSecrets(config, id, attributes, checked, store);
    const created = await store.create(contextId, this.toWrite(config, id, attributes));
    if (password !== undefined && store.passwords) {
      // The directory's own policy may still refuse it: then the subject is not created either.
      await store.passwords.set(contextId, id, password).catch(async (error: unknown) => {
        await store.delete(contextId, id);
        throw error;
      });
    }
    return created;
  }

  read(contextId: string, uniqueId: string): Promise<StoredSubject> {
    return this.readIn(this.context(contextId), contextId, uniqueId);
  }

  /** read() in a context already looked up: a write looks its context up once, however often it reads. */
  private async readIn(entry: ContextEntry, contextId: string, uniqueId: string): Promise<StoredSubject> {
    const subject = await entry.store.get(contextId, uniqueId);
    if (!subject) throw new NotFound(`subject ${uniqueId} not found in ${contextId}`);
    return subject;
  }

  /**
   * Replaces the given attributes, removes those given as null, keeps the others. With
   * `expectedVersion` (If-Match) the write happens only on that version. Without it, the write is
   * still conditional on the version it was merged onto, and merged again when another writer (this
   * core or another one sharing the store) came first: attributes this request did not name are
   * never overwritten with what they were before.
   */
  async update(
    contextId: string,
    uniqueId: string,
    input: AttributeInput,
    writer: Writer,
    expectedVersion?: number,
  ): Promise<StoredSubject> {
    const entry = this.context(contextId);
    const { config, store } = entry;
    const current = await this.readIn(entry, contextId, uniqueId);
    if (expectedVersion !== undefined && current.version !== expectedVersion) throw new PreconditionFailed('the subject has changed');
    const checked = checkAttributes(config, input, writer, false);
    const given = config.definition.password === undefined ? undefined : checked[config.definition.password];
    if (store.passwords && typeof given === 'string') {
      // First, so that a password the directory refuses leaves the subject as it was.
      checkPasswordPolicy(given, { userId: uniqueId, attributes: { ...current.attributes, ...checked } });
      await store.passwords.set(contextId, uniqueId, given);
    }
    // Secrets are hashed on the first merge only; a merge again reuses the hashes.
    let hashes: Attributes | undefined;
    const { before, after } = await this.rewrite(entry, contextId, current, expectedVersion, async (attributes) => {
      for (const [name, value] of Object.entries(checked)) {
        if (value === null) delete attributes[name];
        else attributes[name] = value;
      }
      if (hashes) return Object.assign(attributes, hashes);
      await this.protectSecrets(config, uniqueId, attributes, checked, store);
      const secrets = [config.definition.password, config.forgottenPassword.answersAttribute].filter(
        (name): name is string => name !== undefined && checked[name] !== undefined && checked[name] !== null,
      );
      hashes = Object.fromEntries(secrets.map((name) => [name, attributes[name]]));
      return attributes;
    });
    const password = config.definition.password;
    await this.emit(contextId, uniqueId, 'updated');
    if (password && password in checked) await this.emit(contextId, uniqueId, 'password');
    if (checked.disabled === 'true' && before.attributes.disabled !== 'true') await this.emit(contextId, uniqueId, 'disabled');
    return after;
  }

  /**
   * A new password (already through the policy), without the mutability rules: hashed into
   * `definition.password`, or, for a store that keeps passwords itself (ldap), written there. Which
   * sessions end is the caller's decision: a reset ends all, an own change keeps the caller's.
   */
  async setPassword(contextId: string, uniqueId: string, password: string): Promise<void> {
    const { store } = this.context(contextId);
    if (store.passwords) return store.passwords.set(contextId, uniqueId, password);
    await this.setPasswordHash(contextId, uniqueId, await this.hasher.hash(password));
  }

  /**
   * What a reset link is bound to (SPEC 16): a value that changes whenever the subject's password
   * changes, read now. The stored hash where svc keeps the password (none: ""); where a directory
   * keeps it, the directory's credential version (ldap: the entry's entryCSN), since svc cannot
   * read the hash there. Undefined: nothing to bind to, so no link is usable.
   */
  async credentialVersion(contextId: string, subject: StoredSubject): Promise<string | undefined> {
    const { config, store } = this.context(contextId);
    if (store.passwords) return store.passwords.credentialVersion(contextId, subject.uniqueId);
    const attribute = config.definition.password;
    return attribute ? (valuesOf(subject.attributes[attribute])[0] ?? '') : '';
  }

  /** The directory that keeps this context's passwords, if it is not svc (SPEC 13). */
  directoryPasswords(contextId: string): DirectoryPasswords | undefined {
    return this.context(contextId).store.passwords;
  }

  /** Stores a hash as it is (setPassword, and a hash upgrade at login, which ends no session). */
  async setPasswordHash(contextId: string, uniqueId: string, hash: string): Promise<void> {
    const entry = this.context(contextId);
    const name = entry.config.definition.password;
    if (!name) throw new InvalidRequest(`context ${contextId} has no password attribute`);
    await this.rewrite(entry, contextId, await this.readIn(entry, contextId, uniqueId), undefined, async (attributes) => ({ ...attributes, [name]: hash }));
  }

  /**
   * Writes `change(attributes)` over the subject on the version it was read at. With
   * `expectedVersion` a lost race is the caller's 412; without, the subject is read again and the
   * change merged again, a few times.
   */
  private async rewrite(
    entry: ContextEntry,
    contextId: string,
    read: StoredSubject,
    expectedVersion: number | undefined,
    change: (attributes: Attributes) => Promise<Attributes>,
  ): Promise<{ before: StoredSubject; after: StoredSubject }> {
    const { config, store } = entry;
    let before = read;
    for (let attempt = 1; ; attempt++) {
      const attributes = await change({ ...before.attributes });
      try {
        const after = await store.update(contextId, this.toWrite(config, before.uniqueId, attributes), expectedVersion ?? before.version);
        return { before, after };
      } catch (error) {
        if (!(error instanceof PreconditionFailed) || expectedVersion !== undefined) throw error;
        // No If-Match was sent, so a 412 would name a precondition the client never set.
        if (attempt === MAX_MERGES) throw new Conflict('the subject kept changing under this write; send it again');
        // A random pause, doubling with each lost race ("full jitter"), so that writers racing in step
        // fall out of it: a dozen writers on one subject then all land within a few rounds.
        await delay(Math.random() * Math.min(128, MERGE_BACKOFF_MS * 2 ** attempt));
        before = await this.readIn(entry, contextId, before.uniqueId);
      }
    }
  }

  async delete(contextId: string, uniqueId: string): Promise<void> {
    const removed = await this.context(contextId).store.delete(contextId, uniqueId);
    if (!removed) throw new NotFound(`subject ${uniqueId} not found in ${contextId}`);
    await this.emit(contextId, uniqueId, 'deleted');
  }

  async search(contextId: string, params: SearchParams): Promise<SearchPage> {
    const { config, store } = this.context(contextId);
    const defined = config.definition.attributes;
    const isReadable = (name: string) => name === 'uniqueId' || (Object.hasOwn(defined, name) && defined[name].mutability !== 'writeOnly');
    const filter = params.tree ?? (params.filter === undefined ? undefined : parseFilter(params.filter, isReadable));
    const sort = searchSort(config, params.sort, params.order);
    const text = params.search?.trim() ? { prefix: fold(params.search.trim()), attributes: config.searchAttributes } : undefined;
    // No value holds a control character (refused at every write): such a free text matches nothing,
    // on every store alike, without asking one (a directory drops a NUL and matches everything).
    if (text && holdsControlCharacter(text.prefix)) return { results: [], total: 0 };
    return store.search(contextId, { filter, text, sort, offset: params.offset, quantity: params.quantity });
  }

  /**
   * A subject's events (SPEC 10.4), newest first; NotFound for a missing subject. A store that keeps
   * none answers none.
   */
  async events(contextId: string, uniqueId: string, offset: number, quantity: number): Promise<SubjectEventPage> {
    const { store } = this.context(contextId);
    if (!(await store.exists(contextId, uniqueId))) throw new NotFound(`subject ${uniqueId} not found in ${contextId}`);
    return store.events ? store.events.list(contextId, uniqueId, offset, quantity) : { events: [], total: 0 };
  }

  /** The one subject a login name designates: its uniqueId or a `definition.authenid` value. */
  async findByLoginName(contextId: string, name: string): Promise<StoredSubject | undefined> {
    return (await this.findLogin(contextId, name))?.subject;
  }

  /**
   * The same lookup for a login: the subject and, on a store that keeps passwords, where its
   * password is checked (an LDAP entry's DN, opaque here), from the one search that found it.
   */
  async findLogin(contextId: string, name: string): Promise<FoundSubject | undefined> {
    const { store } = this.context(contextId);
    // No login name holds a control character (ids and values refuse them): it designates nobody, on every store.
    if (holdsControlCharacter(name)) return undefined;
    const key = `login:${fold(name)}`;
    if (store.findLogin) return store.findLogin(contextId, key);
    const subject = await store.findByKey(contextId, key);
    return subject && { subject };
  }

  /**
   * Hashes the password and answers given. A store that keeps passwords itself gets no password
   * attribute: the password (policy-checked) is returned for the caller to write there.
   */
  private async protectSecrets(config: ContextConfig, uniqueId: string, attributes: Attributes, given: Record<string, unknown>, store: SubjectStore): Promise<string | undefined> {
    const password = config.definition.password;
    let plain: string | undefined;
    if (password && typeof given[password] === 'string') {
      checkPasswordPolicy(given[password] as string, { userId: uniqueId, attributes });
      if (store.passwords) {
        plain = given[password] as string;
        delete attributes[password];
      } else attributes[password] = await this.hasher.hash(given[password] as string);
    }
    const answers = config.forgottenPassword.answersAttribute;
    if (config.forgottenPassword.enabled && Array.isArray(given[answers])) {
      attributes[answers] = await Promise.all((given[answers] as string[]).map((a) => this.hasher.hash(normaliseAnswer(a))));
    }
    return plain;
  }

  /** The store's view of a write: uniqueness keys (login names, unique values) and folded search values. */
  toWrite(config: ContextConfig, uniqueId: string, attributes: Attributes): SubjectWrite {
    const defined = config.definition.attributes;
    const keys = [`login:${fold(uniqueId)}`];
    for (const name of config.definition.authenid) {
      if (name !== 'uniqueId') for (const v of valuesOf(attributes[name])) keys.push(`login:${fold(v)}`);
    }
    const indexed: Array<[string, string]> = [['uniqueId', fold(uniqueId)]];
    for (const [name, value] of Object.entries(attributes)) {
      const definition = defined[name];
      if (!definition || definition.mutability === 'writeOnly') continue;
      for (const v of valuesOf(value)) {
        indexed.push([name, fold(v)]);
        if (definition.unique) keys.push(`unique:${name}:${fold(v)}`);
      }
    }
    return { uniqueId, attributes, keys: [...new Set(keys)], indexed };
  }

  private async emit(contextId: string, uniqueId: string, change: SubjectChange): Promise<void> {
    await Promise.all(this.listeners.map((listener) => listener(contextId, uniqueId, change)));
  }
}

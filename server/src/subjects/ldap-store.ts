import { AndFilter, Attribute, Change, EqualityFilter, OrFilter, ResultCodeError, ServerSideSortingRequestControl, type Entry } from 'ldapts';
import { Conflict, InvalidAttributes, NotFound, PreconditionFailed, ServiceUnavailable, SvcError } from '../../../common/src/errors';
import type { Logger } from '../../../common/src/log';
import type { LdapSettings, SvcConfig } from '../config/types';
import { compileFilter } from './filter/evaluate';
import { candidateFilter, escapeDnValue, escapeFilterValue, filterToLdap } from './filter/to-ldap';
import { LdapEntries, type LdapContextShape, type Read } from './ldap-entries';
import { LdapPasswords, passwordTargetAt } from './ldap-passwords';
import { LdapPool } from './ldap-pool';
import { DirectorySchema } from './ldap-schema';
import { subjectOrder } from './sort';
import { AssertionControl, VlvRequestControl, type DirectoryClient } from './ldap-protocol';
import { openOnce } from './open-once';
import type { SubjectEventsFile } from './events-file';
import type { SubjectGroupsFile } from './groups-file';
import { MemorySubjectGroups, planGroupImport, type SubjectGroups } from './subject-groups';
import { importConflict, keysTaken, matchesSearchText, type FoundSubject, type ImportedSubject, type ImportOptions, type SearchPage, type SearchQuery, type SearchSort, type SubjectStore, type SubjectWrite } from './store';
import { fold, valuesOf, type StoredSubject } from './subject';

export { ldapShapes, type LdapContextShape } from './ldap-entries';

/** LDAP result codes the store answers for. */
const NO_SUCH_OBJECT = 32;
const ALREADY_EXISTS = 68;
const CONSTRAINT_VIOLATION = 19;
const INVALID_ATTRIBUTE_SYNTAX = 21;
const ASSERTION_FAILED = 122;
/** Writes without If-Match that lost to another writer are tried again this many times. */
const MAX_RETRIES = 5;
/** Entries per window when a search's candidates are read whole (to be checked by svc's own matching). */
const CANDIDATE_WINDOW = 500;

/**
 * A svcKey as the unique overlay compares it (caseExactMatch, RFC 4518: compatibility forms and
 * insignificant spaces folded), so that an import's check before writing refuses whatever the
 * directory would refuse half-way.
 */
const asTheDirectoryCompares = (key: string): string => key.normalize('NFKC').replace(/\s+/g, ' ').trim();

const code = (error: unknown): number | undefined => (error instanceof ResultCodeError ? error.code : undefined);

/**
 * Subjects in an LDAP directory (SPEC section 13): context `c` is the entries one level under
 * `ou=c,<baseDN>`. svc names the entries it adds `<idAttribute>=<uniqueId>`, but finds every entry
 * by a search (svcId, or idAttribute on an entry svc has not written) and then uses the DN found, so
 * an existing entry named by another RDN (`cn=carol` with `uid=carol`) is read, written, deleted and
 * bound as where it is. CRUDS are add, search, modify and delete
 * on the pool's service-account connections. What must hold across cores is the directory's to
 * enforce: uniqueness of login names and unique values by the `unique` overlay on `svcKey` (each
 * context its own domain), If-Match by a modify carrying the assertion control on the `entryCSN`
 * that was read, ordered pages with a total by server-side sorting on `svcId` (code-point order)
 * and a virtual list view. Passwords never pass through here: the directory keeps them.
 */
export class LdapSubjectStore implements SubjectStore {
  readonly kind = 'ldap';
  /** The subjects' passwords: in the directory, checked by binds, written by password modify. */
  readonly passwords: LdapPasswords;
  private readonly pool: LdapPool;
  private readonly entries: LdapEntries;
  private readonly opener = openOnce(() => this.prepare());
  /** The smallest `pwdMaxFailure` of the directory's password policies (0: none), read by open(). */
  directoryMaxFailure = 0;
  /** The subjects' events (SPEC 10.4): not in the directory, in svc's own `events.sqlite` (events-file.ts). */
  readonly events?: SubjectEventsFile;
  /** SCIM's groups (SPEC 14): not in the directory, in svc's own `groups.sqlite` (groups-file.ts); in memory when none is given. */
  readonly groups: SubjectGroups;

  constructor(
    private readonly settings: LdapSettings,
    private readonly contexts: ReadonlyMap<string, LdapContextShape>,
    private readonly options: { log?: Logger; now?: () => Date; events?: SubjectEventsFile; groups?: SubjectGroupsFile } = {},
  ) {
    this.events = options.events;
    this.groups = options.groups ?? new MemorySubjectGroups(options.now);
    this.pool = new LdapPool(settings, options.log);
    this.entries = new LdapEntries(settings, contexts);
    this.passwords = new LdapPasswords(this.pool, (context, uniqueId) => this.run((client) => this.readEntry(client, context, uniqueId)), options.log);
  }

  /**
   * Creates each context's `ou` when missing, and refuses a `maxFailures` at or above the
   * directory's `pwdMaxFailure` (svc must lock before the directory does).
   */
  open(): Promise<void> {
    return this.opener();
  }

  private async prepare(): Promise<void> {
    await this.pool.with(async (client) => {
      for (const context of this.contexts.keys()) {
        await client.add(this.contextDN(context), { objectClass: ['organizationalUnit'], ou: context }).catch((error: unknown) => {
          if (code(error) !== ALREADY_EXISTS) throw error;
        });
      }
      const { searchEntries } = await client.search(this.namingContext(), { scope: 'sub', filter: '(objectClass=pwdPolicy)', attributes: ['pwdMaxFailure'] });
      const limits = searchEntries.map((e) => Number(e.pwdMaxFailure)).filter((n) => Number.isInteger(n) && n > 0);
      this.directoryMaxFailure = limits.length ? Math.min(...limits) : 0;
      this.entries.schema = await DirectorySchema.read(client).catch((error: unknown) => {
        if (code(error) === undefined) throw error;
        // A directory that hides its schema from svc's account: its own refusals are then the only check.
        this.options.log?.warn({ store: 'ldap', err: (error as Error).message }, 'the directory schema could not be read; values are checked by the directory alone');
        return new DirectorySchema([]);
      });
    });
    const [problem] = [...this.lockoutProblems(this.settings.maxFailures), ...this.operationalProblems()];
    if (problem) throw new Error(problem);
  }

  /** A reload may not raise svc's per-subject limit to the directory's own (it would lock accounts). */
  reloadProblems(config: SvcConfig): string[] {
    return config.stores.ldap ? this.lockoutProblems(config.stores.ldap.maxFailures) : [];
  }

  private lockoutProblems(maxFailures: number): string[] {
    if (this.directoryMaxFailure === 0 || maxFailures < this.directoryMaxFailure) return [];
    return [
      `stores.ldap.maxFailures (${maxFailures}) must be below the directory's pwdMaxFailure (${this.directoryMaxFailure}): ` +
        'svc must lock a subject before the directory locks the account',
    ];
  }

  /**
   * Beside the configuration's list of refused attributes (config/ldap-attributes.ts), the
   * directory's own word: an attribute its schema calls operational is never mapped.
   */
  private operationalProblems(): string[] {
    const mapped = new Set([...this.contexts.values()].flatMap((shape) => shape.attributes.map(this.entries.attribute)));
    return [...mapped]
      .filter((attribute) => this.entries.schema.isOperational(attribute))
      .map((attribute) => `stores.ldap: "${attribute}" is an operational attribute of the directory (its schema says so); svc may not map a subject attribute to it`);
  }

  /** The suffix baseDN is under (its last two RDNs at most), where password policies usually live. */
  private namingContext(): string {
    const parts = this.settings.baseDN.split(/(?<!\\),/);
    return parts.filter((p) => /^dc=/i.test(p.trim())).join(',') || this.settings.baseDN;
  }

  contextDN(context: string): string {
    return `ou=${escapeDnValue(context)},${this.settings.baseDN}`;
  }

  /** Where svc adds a new entry (an existing one is found by readEntry, wherever it is named). */
  dnOf(context: string, uniqueId: string): string {
    return `${this.settings.idAttribute}=${escapeDnValue(uniqueId)},${this.contextDN(context)}`;
  }

  /** Runs `body` on a pooled connection; directory and network failures become svc's errors. */
  private async run<T>(body: (client: DirectoryClient) => Promise<T>): Promise<T> {
    try {
      await this.open();
      return await this.pool.with(body);
    } catch (error) {
      throw this.translate(error);
    }
  }

  private translate(error: unknown): unknown {
    if (code(error) === INVALID_ATTRIBUTE_SYNTAX) {
      // What the schema read at open did not foresee (a syntax svc does not check): "mail: value #0 invalid per syntax".
      const attribute = /^([A-Za-z][A-Za-z0-9-]*):/.exec((error as Error).message)?.[1];
      const path = attribute === undefined ? 'subject.attributes' : `subject.attributes.${this.entries.svcAttributeOf(attribute)}`;
      return new InvalidAttributes('the directory cannot hold these values', { errors: [{ path, message: "refused by the directory's syntax for it" }] });
    }
    if (error instanceof SvcError || error instanceof ResultCodeError) return error;
    const message = error instanceof Error ? error.message : String(error);
    this.options.log?.warn({ store: 'ldap', err: message }, 'the directory is unavailable');
    return new ServiceUnavailable(/timed out/i.test(message) ? 'the subject store did not answer in time' : 'the subject store is unavailable', {
      headers: { 'Retry-After': '1' },
      cause: error instanceof Error ? error : undefined,
    });
  }

  private now(): string {
    return (this.options.now?.() ?? new Date()).toISOString();
  }

  /**
   * The context's entry whose uniqueId is `uniqueId`, by a one-level search rather than at a DN built
   * from it: its svcId, or, on an entry svc has not written yet, its idAttribute; the DN is the one
   * found (an entry may be named by another RDN). Two entries answering is no answer.
   */
  private async readEntry(client: DirectoryClient, context: string, uniqueId: string): Promise<Read | undefined> {
    const id = escapeFilterValue(uniqueId);
    const filter = `(|(svcId=${id})(&(!(svcId=*))(${this.settings.idAttribute}=${id})))`;
    try {
      const { searchEntries } = await client.search(this.contextDN(context), { scope: 'one', filter, attributes: this.entries.readAttributes(context) });
      // idAttribute (uid) matches case-insensitively; uniqueIds compare exactly.
      const reads = searchEntries.map((e) => this.entries.toRead(context, e)).filter((read) => read.subject.uniqueId === uniqueId);
      return reads.length === 1 ? reads[0] : undefined;
    } catch (error) {
      if (code(error) === NO_SUCH_OBJECT) return undefined;
      throw error;
    }
  }

  /** A write whose values the directory would refuse is refused here first: 400, nothing sent. */
  private assertStorable(context: string, write: SubjectWrite): void {
    const errors = this.entries.refusals(context, write);
    if (errors.length) throw new InvalidAttributes('the directory cannot hold these values', { errors });
  }

  /** Why a write was refused for uniqueness: its own id taken, or which of its keys another entry holds. */
  private async conflict(client: DirectoryClient, context: string, write: SubjectWrite, creating: boolean): Promise<Conflict> {
    if (creating && (await this.readEntry(client, context, write.uniqueId))) return new Conflict(`subject ${write.uniqueId} exists`);
    const keys = [...new Set(write.keys)];
    const filter = `(&(|${keys.map((k) => `(svcKey=${escapeFilterValue(k)})`).join('')})(!(svcId=${escapeFilterValue(write.uniqueId)})))`;
    const { searchEntries } = await client.search(this.contextDN(context), { scope: 'one', filter, attributes: ['svcKey'] });
    const held = new Set(searchEntries.flatMap((e) => valuesOf(e.svcKey as string | string[])));
    const taken = keys.filter((k) => held.has(k));
    // The uniqueId's own key is taken by a differently spelt entry (same DN) even without svcKey.
    return keysTaken(taken.length ? taken : [`login:${write.uniqueId.toLowerCase()}`]);
  }

  async create(context: string, write: SubjectWrite): Promise<StoredSubject> {
    const at = this.now();
    return this.run(async (client) => {
      this.assertStorable(context, write);
      const attributes = this.entries.entryAttributes(context, write, 1, at, at);
      const entry = Object.fromEntries(Object.entries(attributes).filter(([, v]) => v.length));
      // An entry svc has not written (no svcKey for the unique overlay) may hold this id under another
      // RDN (cn=carol, uid=carol): adding uid=carol beside it would make the id designate two entries.
      const { searchEntries } = await client.search(this.contextDN(context), { scope: 'one', filter: `(${this.settings.idAttribute}=${escapeFilterValue(write.uniqueId)})`, attributes: ['1.1'] });
      if (searchEntries.length) throw await this.conflict(client, context, write, true);
      try {
        await client.add(this.dnOf(context, write.uniqueId), { objectClass: this.settings.objectClasses, ...entry });
      } catch (error) {
        if (code(error) === ALREADY_EXISTS || code(error) === CONSTRAINT_VIOLATION) throw await this.conflict(client, context, write, true);
        throw error;
      }
      return { uniqueId: write.uniqueId, attributes: structuredClone(write.attributes), version: 1, created: at, modified: at };
    }).then((created) => this.entries.clean(context, created));
  }

  async get(context: string, uniqueId: string): Promise<StoredSubject | undefined> {
    return this.run(async (client) => (await this.readEntry(client, context, uniqueId))?.subject);
  }

  async exists(context: string, uniqueId: string): Promise<boolean> {
    return (await this.get(context, uniqueId)) !== undefined;
  }

  /**
   * `login:x`: the entry whose svcKey claims it, or (an entry svc has not written yet) whose id or
   * login attribute has the value x; `unique:…`: the svcKey alone. Two entries answering is no answer.
   */
  async findByKey(context: string, key: string): Promise<StoredSubject | undefined> {
    return (await this.findLogin(context, key))?.subject;
  }

  /** findByKey with the DN its search found, where the login's bind goes (an opaque PasswordTarget). */
  async findLogin(context: string, key: string): Promise<FoundSubject | undefined> {
    const shape = this.entries.shape(context);
    const clauses = [`(svcKey=${escapeFilterValue(key)})`];
    const login = key.startsWith('login:') ? key.slice('login:'.length) : undefined;
    if (login !== undefined) {
      const value = escapeFilterValue(login);
      if (value === '') return undefined;
      for (const name of ['uniqueId', ...shape.loginAttributes]) clauses.push(`(${this.entries.attribute(name)}=${value})`);
    }
    return this.run(async (client) => {
      const { searchEntries } = await client.search(this.contextDN(context), { scope: 'one', filter: `(|${clauses.join('')})`, attributes: this.entries.readAttributes(context) });
      // The directory's matching rules fold more than svc's (compatibility forms and insignificant
      // spaces: to it "ｂｏｂ" and " bob" are bob), so its answers are candidates: an entry is found
      // only when it claims the key exactly, as the other stores' key index compares it.
      const found = searchEntries.map((e) => this.entries.toRead(context, e)).filter((read) => {
        if (read.keys.length) return read.keys.includes(key);
        const names = [read.subject.uniqueId, ...shape.loginAttributes.flatMap((name) => valuesOf(read.subject.attributes[name]))];
        return login !== undefined && names.some((name) => fold(name) === login);
      });
      if (found.length !== 1) return undefined;
      return { subject: found[0].subject, passwordTarget: passwordTargetAt(found[0].dn) };
    });
  }

  /**
   * A modify conditioned on the entryCSN read just before (RFC 4528): of two writers that read the
   * same entry, the directory lets one through and answers assertionFailed to the other.
   */
  async update(context: string, write: SubjectWrite, expectedVersion?: number): Promise<StoredSubject> {
    return this.run(async (client) => {
      this.assertStorable(context, write);
      for (let attempt = 1; ; attempt++) {
        const current = await this.readEntry(client, context, write.uniqueId);
        if (!current) throw new NotFound(`subject ${write.uniqueId} not found in ${context}`);
        if (expectedVersion !== undefined && current.subject.version !== expectedVersion) throw new PreconditionFailed('the subject has changed');
        const version = current.subject.version + 1;
        const modified = this.now();
        try {
          await this.modify(client, context, current, write, version, current.subject.created, modified);
          return this.entries.clean(context, { uniqueId: write.uniqueId, attributes: structuredClone(write.attributes), version, created: current.subject.created, modified });
        } catch (error) {
          if (code(error) === CONSTRAINT_VIOLATION) throw await this.conflict(client, context, write, false);
          if (code(error) !== ASSERTION_FAILED) throw error;
          if (expectedVersion !== undefined) throw new PreconditionFailed('the subject has changed');
          if (attempt === MAX_RETRIES) throw new PreconditionFailed('the subject kept changing');
        }
      }
    });
  }

  private async modify(client: DirectoryClient, context: string, current: Read, write: SubjectWrite, version: number, created: string, modified: string): Promise<void> {
    const attributes = this.entries.entryAttributes(context, write, version, created, modified);
    const changes = Object.entries(attributes).map(([type, values]) => new Change({ operation: 'replace', modification: new Attribute({ type, values }) }));
    const assertion = new AssertionControl(
      new OrFilter({
        filters: [
          new EqualityFilter({ attribute: 'entryCSN', value: current.csn }),
          // slapo-unique's own search (when svcKey changes) inherits the control and is checked at
          // its domain's base, ou=<context>: that entry passes, and no subject entry is one.
          new AndFilter({ filters: [new EqualityFilter({ attribute: 'objectClass', value: 'organizationalUnit' }), new EqualityFilter({ attribute: 'ou', value: context })] }),
        ],
      }),
    );
    await client.modify(current.dn, changes, assertion);
  }

  async delete(context: string, uniqueId: string): Promise<boolean> {
    return this.run(async (client) => {
      const current = await this.readEntry(client, context, uniqueId);
      if (!current) return false;
      try {
        await client.del(current.dn);
        return true;
      } catch (error) {
        if (code(error) === NO_SUCH_OBJECT) return false;
        throw error;
      }
    });
  }

  /**
   * A window of the context's entries matching `filter`, with the number of all matches, in the
   * directory's server-side sort: by `svcId`, or by the sort's attribute then `svcId`, reversed when
   * descending (RFC 2891: an entry without the attribute sorts after every value).
   */
  private async window(client: DirectoryClient, context: string, filter: string, target: { offset: number } | { from: string }, size: number, order?: SearchSort): Promise<{ entries: Entry[]; total: number }> {
    const reverseOrder = order?.descending ?? false;
    const keys: Array<{ attributeType: string; orderingRule?: string; reverseOrder: boolean }> = [{ attributeType: 'svcId', reverseOrder }];
    // Named, since most user attributes' types have no ordering rule of their own (sn, mail: 18, inappropriateMatching).
    if (order && order.attribute !== 'uniqueId') keys.unshift({ attributeType: this.entries.attribute(order.attribute), orderingRule: 'caseIgnoreOrderingMatch', reverseOrder });
    const sort = new ServerSideSortingRequestControl({ value: keys, critical: true });
    const vlv = new VlvRequestControl(Math.max(size - 1, 0), target);
    const result = await client.searchWithControls(this.contextDN(context), { scope: 'one', filter, attributes: this.entries.readAttributes(context) }, [sort, vlv]);
    // A window past the end (result 76, offsetRangeError) is empty; its VLV response still counts.
    const total = result.vlv?.contentCount ?? result.entries.length;
    return { entries: result.status === 0 ? result.entries.slice(0, size) : [], total };
  }

  private baseFilter(): string {
    return `(${this.settings.idAttribute}=*)`;
  }

  /**
   * Without filter or free text, a window of the sorted entries. With them, the directory's answer
   * is only a candidate set: its matching rules fold more than svc's (compatibility forms, so "ｂ"
   * is "b" to it; insignificant spaces; a NUL it drops), so every candidate is checked by svc's own
   * evaluation, as the memory store evaluates, and the page is cut from what passes (what the
   * directory is asked is widened to hold every subject svc would select: candidateFilter).
   */
  async search(context: string, query: SearchQuery): Promise<SearchPage> {
    const { filter, text } = query;
    const clauses = [this.baseFilter()];
    const candidates = filter && candidateFilter(filter);
    if (candidates) clauses.push(filterToLdap(candidates, this.entries.attribute));
    if (text) {
      const prefix = escapeFilterValue(text.prefix);
      clauses.push(`(|${text.attributes.map((name) => `(${this.entries.attribute(name)}=${prefix}*)`).join('')})`);
    }
    const ldapFilter = `(&${clauses.join('')})`;
    return this.run(async (client) => {
      if (!filter && !text) {
        const { entries, total } = await this.window(client, context, ldapFilter, { offset: query.offset + 1 }, Math.max(query.quantity, 1), query.sort);
        if (query.offset >= total || query.quantity === 0) return { results: [], total };
        return { results: entries.map((e) => this.entries.toRead(context, e).subject), total };
      }
      const matches = filter ? compileFilter(filter) : () => true;
      const selected = (await this.candidates(client, context, ldapFilter)).filter((s) => matches(s) && (!text || matchesSearchText(text, s)));
      // What svc selected is ordered as svc orders (sort.ts), as the memory store does.
      if (query.sort) selected.sort(subjectOrder(query.sort));
      return { results: selected.slice(query.offset, query.offset + query.quantity), total: selected.length };
    });
  }

  /** Every entry matching `filter`, in the sorted order of pages, read a window at a time. */
  private async candidates(client: DirectoryClient, context: string, filter: string): Promise<StoredSubject[]> {
    const subjects: StoredSubject[] = [];
    for (let offset = 1; ; offset += CANDIDATE_WINDOW) {
      const { entries, total } = await this.window(client, context, filter, { offset }, CANDIDATE_WINDOW);
      subjects.push(...entries.map((e) => this.entries.toRead(context, e).subject));
      if (entries.length === 0 || offset + CANDIDATE_WINDOW > total) return subjects;
    }
  }

  async list(context: string, after: string | undefined, limit: number): Promise<StoredSubject[]> {
    return this.run(async (client) => {
      const target = after === undefined ? { offset: 1 } : { from: after };
      const { entries } = await this.window(client, context, this.baseFilter(), target, limit + 1);
      return entries
        .map((e) => this.entries.toRead(context, e).subject)
        .filter((s) => after === undefined || s.uniqueId > after)
        .slice(0, limit);
    });
  }

  /**
   * A directory has no DISTINCT: the entries holding the attribute are read in pages (simple paged
   * results), that attribute alone, and its values folded. One round trip per 500 holders.
   */
  async distinctValues(context: string, attribute: string): Promise<string[]> {
    const name = this.entries.attribute(attribute);
    return this.run(async (client) => {
      const { searchEntries } = await client.search(this.contextDN(context), {
        scope: 'one',
        filter: `(&${this.baseFilter()}(${name}=*))`,
        attributes: [name],
        paged: { pageSize: CANDIDATE_WINDOW },
      });
      const values = new Set<string>();
      for (const entry of searchEntries) {
        const found = Object.entries(entry).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
        if (found === undefined) continue;
        for (const v of Array.isArray(found) ? found : [found]) values.add(fold(Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
      }
      return [...values].sort();
    });
  }

  async count(context: string): Promise<number> {
    return this.run(async (client) => (await this.window(client, context, this.baseFilter(), { offset: 1 }, 1)).total);
  }

  /**
   * The directory has no transactions: every value the directory would refuse, and every conflict
   * (an id that exists without `replace`, a key held by another entry or twice in the batch, a
   * group's id or name taken), is looked for before anything is written, so a refused import
   * writes nothing and names the subject or group at fault. A directory failing half-way leaves the
   * subjects written so far (and no group: the groups are written last, in groups.sqlite).
   */
  async importSubjects(context: string, subjects: ImportedSubject[], options: ImportOptions): Promise<void> {
    await this.run(async (client) => {
      for (const { write } of subjects) {
        const errors = this.entries.refusals(context, write);
        if (errors.length) throw new InvalidAttributes(`subject ${write.uniqueId}: the directory cannot hold these values`, { errors, extensions: { uniqueId: write.uniqueId } });
      }
      const { searchEntries } = await client.search(this.contextDN(context), { scope: 'one', filter: this.baseFilter(), attributes: ['svcId', this.settings.idAttribute, 'svcKey'] });
      const existing = new Map<string, string>();
      const holders = new Map<string, string>();
      for (const entry of searchEntries) {
        const id = valuesOf((entry.svcId ?? entry[this.settings.idAttribute]) as string | string[])[0] ?? '';
        existing.set(id.toLowerCase(), id);
        for (const key of valuesOf(entry.svcKey as string | string[])) holders.set(asTheDirectoryCompares(key), id);
      }
      const batch = new Map(subjects.map((s) => [s.write.uniqueId, s]));
      for (const { write } of subjects) {
        const same = existing.get(write.uniqueId.toLowerCase());
        if (same !== undefined && (!options.replace || same !== write.uniqueId)) throw importConflict(write.uniqueId, new Conflict(`subject ${write.uniqueId} exists`));
        for (const key of new Set(write.keys)) {
          const holder = holders.get(asTheDirectoryCompares(key));
          // A key held by an entry this import replaces is free unless that entry keeps it.
          const freed = holder !== undefined && holder !== write.uniqueId && options.replace && batch.has(holder) && !batch.get(holder)!.write.keys.some((k) => asTheDirectoryCompares(k) === asTheDirectoryCompares(key));
          if (holder !== undefined && holder !== write.uniqueId && !freed) throw importConflict(write.uniqueId, keysTaken([key]));
          holders.set(asTheDirectoryCompares(key), write.uniqueId);
        }
      }
      // SCIM's groups are svc's own (groups.sqlite): checked with the rest before anything is written, written last.
      const groups = options.groups ?? [];
      if (groups.length) planGroupImport(await this.groups.list(context), groups, options.replace);
      let done = 0;
      for (const { write, created, modified } of subjects) {
        const current = existing.has(write.uniqueId.toLowerCase()) ? await this.readEntry(client, context, write.uniqueId) : undefined;
        if (current) await this.modify(client, context, current, write, current.subject.version + 1, created, modified);
        else {
          const entry = Object.fromEntries(Object.entries(this.entries.entryAttributes(context, write, 1, created, modified)).filter(([, v]) => v.length));
          await client.add(this.dnOf(context, write.uniqueId), { objectClass: this.settings.objectClasses, ...entry });
        }
        if (++done % 1000 === 0) options.onProgress?.(done);
      }
      await this.groups.importGroups(context, groups, options.replace);
      options.onProgress?.(subjects.length);
    });
  }

  async ping(): Promise<boolean> {
    try {
      await this.pool.with((client) => client.search(this.settings.baseDN, { scope: 'base', filter: '(objectClass=*)', attributes: ['1.1'] }));
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.events?.close();
    this.options.groups?.close();
    await this.pool.close();
  }
}

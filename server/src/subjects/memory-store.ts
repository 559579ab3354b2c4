import { Conflict, NotFound, PreconditionFailed } from '../../../common/src/errors';
import { matchesFilter } from './filter/evaluate';
import { MemorySubjectEvents } from './memory-events';
import { MemorySubjectGroups } from './subject-groups';
import { subjectOrder } from './sort';
import { importConflict, keysTaken, matchesSearchText, type ImportedSubject, type ImportOptions, type SearchPage, type SearchQuery, type SubjectStore, type SubjectWrite } from './store';
import { fold, valuesOf, type StoredSubject } from './subject';

interface ContextData {
  subjects: Map<string, StoredSubject>;
  keys: Map<string, string>;
}

const byUniqueId = (a: StoredSubject, b: StoredSubject) => (a.uniqueId < b.uniqueId ? -1 : a.uniqueId > b.uniqueId ? 1 : 0);

/** Keeps everything in process memory: for tests and throw-away contexts. */
export class MemorySubjectStore implements SubjectStore {
  readonly kind = 'memory';
  readonly events = new MemorySubjectEvents();
  readonly groups: MemorySubjectGroups;
  private readonly contexts = new Map<string, ContextData>();

  constructor(private readonly now: () => Date = () => new Date()) {
    this.groups = new MemorySubjectGroups(now);
  }

  private data(context: string): ContextData {
    let data = this.contexts.get(context);
    if (!data) this.contexts.set(context, (data = { subjects: new Map(), keys: new Map() }));
    return data;
  }

  /** Takes the write's keys; `existed` says whether the subject may own keys already (a scan to drop them). */
  private claim(data: ContextData, write: SubjectWrite, existed: boolean): void {
    const taken = write.keys.filter((key) => data.keys.has(key) && data.keys.get(key) !== write.uniqueId);
    if (taken.length) throw keysTaken(taken);
    if (existed) for (const [key, owner] of data.keys) if (owner === write.uniqueId) data.keys.delete(key);
    for (const key of write.keys) data.keys.set(key, write.uniqueId);
  }

  async create(context: string, write: SubjectWrite): Promise<StoredSubject> {
    const data = this.data(context);
    if (data.subjects.has(write.uniqueId)) throw new Conflict(`subject ${write.uniqueId} exists`);
    this.claim(data, write, false);
    const at = this.now().toISOString();
    const subject = { uniqueId: write.uniqueId, attributes: structuredClone(write.attributes), version: 1, created: at, modified: at };
    data.subjects.set(write.uniqueId, subject);
    return structuredClone(subject);
  }

  async get(context: string, uniqueId: string): Promise<StoredSubject | undefined> {
    const subject = this.data(context).subjects.get(uniqueId);
    return subject && structuredClone(subject);
  }

  async exists(context: string, uniqueId: string): Promise<boolean> {
    return this.data(context).subjects.has(uniqueId);
  }

  async findByKey(context: string, key: string): Promise<StoredSubject | undefined> {
    const data = this.data(context);
    const owner = data.keys.get(key);
    return owner === undefined ? undefined : this.get(context, owner);
  }

  async update(context: string, write: SubjectWrite, expectedVersion?: number): Promise<StoredSubject> {
    const data = this.data(context);
    const current = data.subjects.get(write.uniqueId);
    if (!current) throw new NotFound(`subject ${write.uniqueId} not found`);
    if (expectedVersion !== undefined && current.version !== expectedVersion) throw new PreconditionFailed('the subject has changed');
    this.claim(data, write, true);
    const next = { ...current, attributes: structuredClone(write.attributes), version: current.version + 1, modified: this.now().toISOString() };
    data.subjects.set(write.uniqueId, next);
    return structuredClone(next);
  }

  async delete(context: string, uniqueId: string): Promise<boolean> {
    const data = this.data(context);
    for (const [key, owner] of data.keys) if (owner === uniqueId) data.keys.delete(key);
    return data.subjects.delete(uniqueId);
  }

  async search(context: string, query: SearchQuery): Promise<SearchPage> {
    const text = query.text;
    const matches = [...this.data(context).subjects.values()]
      .filter((s) => !query.filter || matchesFilter(query.filter, s))
      .filter((s) => !text || matchesSearchText(text, s))
      .sort(subjectOrder(query.sort));
    return { results: structuredClone(matches.slice(query.offset, query.offset + query.quantity)), total: matches.length };
  }

  async list(context: string, after: string | undefined, limit: number): Promise<StoredSubject[]> {
    const page = [...this.data(context).subjects.values()].filter((s) => after === undefined || s.uniqueId > after).sort(byUniqueId);
    return structuredClone(page.slice(0, limit));
  }

  /** Applies every subject to a copy of the context and keeps the copy only when all of them (and the groups) fit. */
  async importSubjects(context: string, subjects: ImportedSubject[], options: ImportOptions): Promise<void> {
    const current = this.data(context);
    const copy: ContextData = { subjects: new Map(current.subjects), keys: new Map(current.keys) };
    subjects.forEach(({ write, created, modified }, i) => {
      const existing = copy.subjects.get(write.uniqueId);
      try {
        if (existing && !options.replace) throw new Conflict(`subject ${write.uniqueId} exists`);
        this.claim(copy, write, existing !== undefined);
      } catch (error) {
        throw importConflict(write.uniqueId, error);
      }
      const version = existing ? existing.version + 1 : 1;
      copy.subjects.set(write.uniqueId, { uniqueId: write.uniqueId, attributes: structuredClone(write.attributes), version, created, modified });
      if ((i + 1) % 1000 === 0) options.onProgress?.(i + 1);
    });
    // The groups last: they are written only when every subject fitted, and refused before the copy is kept.
    this.groups.importNow(context, options.groups ?? [], options.replace);
    this.contexts.set(context, copy);
    options.onProgress?.(subjects.length);
  }

  async distinctValues(context: string, attribute: string): Promise<string[]> {
    const values = new Set<string>();
    for (const subject of this.data(context).subjects.values()) for (const value of valuesOf(subject.attributes[attribute])) values.add(fold(value));
    return [...values].sort();
  }

  async count(context: string): Promise<number> {
    return this.data(context).subjects.size;
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}
}

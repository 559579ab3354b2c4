import { Conflict, NotFound, PreconditionFailed } from '../../../common/src/errors';
import { matchesFilter } from './filter/evaluate';
import type { SearchPage, SearchQuery, SubjectStore, SubjectWrite } from './store';
import { fold, valuesOf, type StoredSubject } from './subject';

interface ContextData {
  subjects: Map<string, StoredSubject>;
  keys: Map<string, string>;
}

/** Keeps everything in process memory: for tests and throw-away contexts. */
export class MemorySubjectStore implements SubjectStore {
  readonly kind = 'memory';
  private readonly contexts = new Map<string, ContextData>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  private data(context: string): ContextData {
    let data = this.contexts.get(context);
    if (!data) this.contexts.set(context, (data = { subjects: new Map(), keys: new Map() }));
    return data;
  }

  private claim(data: ContextData, write: SubjectWrite): void {
    const taken = write.keys.filter((key) => data.keys.has(key) && data.keys.get(key) !== write.uniqueId);
    if (taken.length) {
      throw new Conflict('a unique value is already taken', {
        extensions: { conflicts: taken.map((key) => (key.startsWith('unique:') ? key.split(':')[1] : 'login name')) },
      });
    }
    for (const [key, owner] of data.keys) if (owner === write.uniqueId) data.keys.delete(key);
    for (const key of write.keys) data.keys.set(key, write.uniqueId);
  }

  async create(context: string, write: SubjectWrite): Promise<StoredSubject> {
    const data = this.data(context);
    if (data.subjects.has(write.uniqueId)) throw new Conflict(`subject ${write.uniqueId} exists`);
    this.claim(data, write);
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
    this.claim(data, write);
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
      .filter(
        (s) =>
          !text ||
          text.attributes.some((name) =>
            (name === 'uniqueId' ? [s.uniqueId] : valuesOf(s.attributes[name])).some((v) => fold(v).startsWith(text.prefix)),
          ),
      )
      .sort((a, b) => (a.uniqueId < b.uniqueId ? -1 : a.uniqueId > b.uniqueId ? 1 : 0));
    return { results: structuredClone(matches.slice(query.offset, query.offset + query.quantity)), total: matches.length };
  }

  async count(context: string): Promise<number> {
    return this.data(context).subjects.size;
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}
}

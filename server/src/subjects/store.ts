import type { FilterNode } from './filter/ast';
import type { Attributes, StoredSubject } from './subject';

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
  offset: number;
  quantity: number;
}

export interface SearchPage {
  results: StoredSubject[];
  total: number;
}

/**
 * One interface, one file per variant (sqlite-store.ts, memory-store.ts). Uniqueness of `keys` is
 * enforced by the store itself (Conflict); `expectedVersion` gives If-Match (PreconditionFailed).
 */
export interface SubjectStore {
  readonly kind: string;
  create(context: string, write: SubjectWrite): Promise<StoredSubject>;
  get(context: string, uniqueId: string): Promise<StoredSubject | undefined>;
  /** Whether the subject exists, without reading it (the check's `exists`). */
  exists(context: string, uniqueId: string): Promise<boolean>;
  /** The subject that claims a folded key (a login name), if any. */
  findByKey(context: string, key: string): Promise<StoredSubject | undefined>;
  update(context: string, write: SubjectWrite, expectedVersion?: number): Promise<StoredSubject>;
  delete(context: string, uniqueId: string): Promise<boolean>;
  search(context: string, query: SearchQuery): Promise<SearchPage>;
  count(context: string): Promise<number>;
  /** True when the backing store answers (for /ready). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

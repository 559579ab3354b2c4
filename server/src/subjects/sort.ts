/**
 * The order of a sorted SEARCH (SPEC section 3), shared by the stores: the key of a subject in memory
 * (memory store, the directory's candidate sets) and, for the SQL stores, the page cut from their
 * two index-ordered parts (subjects with a value of the attribute, subjects without one).
 */
import type { SearchSort } from './store';
import { fold, valuesOf, type StoredSubject } from './subject';

/** A subject's key for `attribute`: its least folded value, or undefined when it has none. */
export function sortKeyOf(subject: StoredSubject, attribute: string): string | undefined {
  let least: string | undefined;
  for (const value of valuesOf(subject.attributes[attribute])) {
    const folded = fold(value);
    if (least === undefined || folded < least) least = folded;
  }
  return least;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The comparator of `sort` (uniqueId ascending without one): keys, missing last, ties by uniqueId; all reversed when descending. */
export function subjectOrder(sort: SearchSort | undefined): (a: StoredSubject, b: StoredSubject) => number {
  const attribute = sort && sort.attribute !== 'uniqueId' ? sort.attribute : undefined;
  const sign = sort?.descending ? -1 : 1;
  return (a, b) => {
    if (attribute !== undefined) {
      const ka = sortKeyOf(a, attribute);
      const kb = sortKeyOf(b, attribute);
      if (ka !== kb) return sign * (ka === undefined ? 1 : kb === undefined ? -1 : compare(ka, kb));
    }
    return sign * compare(a.uniqueId, b.uniqueId);
  };
}

/**
 * Which of a write's indexed values carry their attribute's sort key: for each name, the first
 * occurrence of its least value. The SQL stores mark those rows (`least`), and an index over the
 * marked rows serves the sorted pages.
 */
export function leastFlags(indexed: ReadonlyArray<[name: string, foldedValue: string]>): boolean[] {
  const least = new Map<string, number>();
  indexed.forEach(([name, value], i) => {
    const at = least.get(name);
    if (at === undefined || value < indexed[at][1]) least.set(name, i);
  });
  const marked = new Set(least.values());
  return indexed.map((_, i) => marked.has(i));
}

/** The two index-ordered parts of a sorted SQL search, and their sizes. */
export interface SortedParts<T> {
  /** Matching subjects with a value, by key then uniqueId, in the page's direction. */
  withValue(offset: number, limit: number): Promise<T[]>;
  /** Matching subjects without a value, by uniqueId, in the page's direction. */
  withoutValue(offset: number, limit: number): Promise<T[]>;
  /** How many matching subjects have a value. */
  countWithValue(): Promise<number>;
}

/**
 * One page of `quantity` from `offset` over the parts in order: ascending, those with a value come
 * first; descending, those without. The first part is read only when the page starts in it (its size
 * is `total` less the other's when descending), and a count is asked only when that decides where the
 * page starts: a first page costs one index-ordered read.
 */
export async function sortedPage<T>(parts: SortedParts<T>, descending: boolean, total: number, offset: number, quantity: number): Promise<T[]> {
  if (quantity === 0 || offset >= total) return [];
  let firstCount: number | undefined;
  if (descending) {
    firstCount = total - (await parts.countWithValue());
    if (firstCount === 0) return parts.withValue(offset, quantity);
  }
  const [first, second] = descending ? [parts.withoutValue, parts.withValue] : [parts.withValue, parts.withoutValue];
  const page = firstCount === undefined || offset < firstCount ? await first(offset, quantity) : [];
  if (page.length === quantity) return page;
  if (page.length > 0) return [...page, ...(await second(0, quantity - page.length))];
  firstCount ??= await parts.countWithValue();
  return second(Math.max(0, offset - firstCount), quantity);
}

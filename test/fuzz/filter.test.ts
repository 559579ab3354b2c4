/**
 * The filter parser and compiler: any text is a filter or an InvalidFilter; a tree survives
 * format → parse; and the real SQLite store (sqlite-store.ts, its own schema, indexes and folding as
 * the service writes them) selects exactly the subjects the in-memory evaluation selects, on random
 * data. (test/subjects/filter-sql.test.ts checks the SQL text alone on a copy of the schema.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { InvalidFilter } from '../../common/src/errors';
import { COMPARE_OPS, formatFilter, type FilterNode } from '../../server/src/subjects/filter/ast';
import { matchesFilter } from '../../server/src/subjects/filter/evaluate';
import { FILTER_LIMITS, parseFilter } from '../../server/src/subjects/filter/parse';
import { SqliteSubjectStore } from '../../server/src/subjects/sqlite-store';
import { fold, valuesOf } from '../../server/src/subjects/subject';
import { runs } from './runs';

// 'ｂ' (U+FF42) against '😀' (U+1F600): code-point order and UTF-16 order disagree (gt ge lt le).
const ALPHABET = ['a', 'B', '%', '_', '\\', '"', 'é', 'e\u0301', 'É', 'ß', 'İ', '😀', 'ｂ', ' ', "'", '*', '\u{10FFFF}'];
const small = fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 3 });
/** Stored values hold no noncharacter (attributes.ts refuses them; U+10FFFF is the range's top). */
const stored = small.filter((s) => !s.includes('\u{10FFFF}'));
const ATTRS = ['mail', 'sn', 'roles'];
const attr = fc.constantFrom(...ATTRS, 'uniqueId', 'absent');

const leaf: fc.Arbitrary<FilterNode> = fc.oneof(
  fc.record({ op: fc.constantFrom(...COMPARE_OPS), attr, value: small }),
  fc.record({ op: fc.constant('pr' as const), attr }),
);
const filter: fc.Memo<FilterNode> = fc.memo((n) =>
  n <= 1
    ? leaf
    : fc.oneof(leaf, fc.record({ op: fc.constantFrom('and' as const, 'or' as const), left: filter(n - 1), right: filter(n - 1) }), fc.record({ op: fc.constant('not' as const), expr: filter(n - 1) })),
);
const subjects = fc.uniqueArray(
  fc.record({
    uniqueId: fc.string({ unit: fc.constantFrom('u', 'U', 'é', '_', '%', '1'), minLength: 1, maxLength: 3 }),
    attributes: fc.dictionary(fc.constantFrom(...ATTRS), fc.oneof(stored, fc.array(stored, { maxLength: 3 })), { maxKeys: 3 }),
  }),
  { selector: (s) => fold(s.uniqueId), maxLength: 10 },
);

const readable = () => true;
const TOKENS = ['(', ')', ' ', 'and', 'or', 'not', 'eq', 'ne', 'co', 'sw', 'ew', 'pr', 'gt', 'LE', ']', 'urn:x:', 'a.b', 'mail', 'uniqueId', '"x"', '"\\u00e9"', '"\\', 'true', 'null', '1', '[', '.', '\t'];

test(`any text is a filter or an InvalidFilter with a position (${runs(800)} runs)`, () => {
  const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), fc.array(fc.constantFrom(...TOKENS), { maxLength: 30 }).map((t) => t.join(' ')), fc.array(fc.constantFrom(...TOKENS), { maxLength: 30 }).map((t) => t.join('')));
  fc.assert(
    fc.property(text, (s) => {
      try {
        parseFilter(s, readable);
      } catch (error) {
        if (!(error instanceof InvalidFilter)) throw error;
        expect(error.message).toMatch(/\(at position \d+\)$/);
      }
    }),
    { numRuns: runs(800) },
  );
});

test(`format then parse gives the same tree (${runs(500)} runs)`, () => {
  fc.assert(fc.property(filter(6), (node) => expect(parseFilter(formatFilter(node), readable)).toEqual(node)), { numRuns: runs(500) });
});

test('the limits hold for any nesting and any chain length', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 400 }), fc.constantFrom('or', 'and'), (n, op) => {
      const chain = Array.from({ length: n }, (_, i) => `mail eq "${i}"`).join(` ${op} `);
      const nested = 'not ('.repeat(n) + 'mail pr' + ')'.repeat(n);
      for (const s of [chain, nested]) {
        const tooBig = n > FILTER_LIMITS.maxComparisons || s.length > FILTER_LIMITS.maxLength || (s === nested && n > FILTER_LIMITS.maxDepth);
        if (tooBig) expect(() => parseFilter(s, readable)).toThrow(InvalidFilter);
        else expect(() => parseFilter(s, readable)).not.toThrow();
      }
    }),
    { numRuns: runs(100) },
  );
});

describe('the SQLite store selects what the in-memory evaluation selects', () => {
  let dir: string;
  let store: SqliteSubjectStore;
  let context = 0;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-fuzz-'));
    store = new SqliteSubjectStore(join(dir, 'svc.db'));
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test(`random subjects, random filters through the parser (${runs(300)} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(subjects, filter(5), async (list, node) => {
        // A fresh context per case: the store is shared, the data of one case must not leak into the next.
        const ctx = `c${context++}`;
        for (const s of list) {
          const indexed: Array<[string, string]> = [['uniqueId', fold(s.uniqueId)]];
          for (const [name, value] of Object.entries(s.attributes)) for (const v of valuesOf(value)) indexed.push([name, fold(v)]);
          await store.create(ctx, { uniqueId: s.uniqueId, attributes: s.attributes, keys: [`login:${fold(s.uniqueId)}`], indexed });
        }
        const parsed = parseFilter(formatFilter(node), readable);
        const page = await store.search(ctx, { filter: parsed, offset: 0, quantity: 100 });
        const expected = list.filter((s) => matchesFilter(parsed, s)).map((s) => s.uniqueId);
        expect(page.results.map((s) => s.uniqueId).sort()).toEqual(expected.sort());
        expect(page.total).toBe(expected.length);
      }),
      { numRuns: runs(300) },
    );
  });
});

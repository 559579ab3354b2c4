/**
 * The SQL translation of filters (to-sql.ts) selects exactly the subjects the in-memory evaluation
 * (evaluate.ts) selects: on a fixed data set with a table of filters, and on random data with random
 * filters (fast-check), in SQLite (better-sqlite3, in memory) and, when it is reachable, PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { Client } from 'pg';
import { COMPARE_OPS, formatFilter, normalizeValue, type FilterNode } from '../../server/src/subjects/filter/ast';
import { matchesFilter, type FilterSubject } from '../../server/src/subjects/filter/evaluate';
import { parseFilter } from '../../server/src/subjects/filter/parse';
import { filterToSql, prefixRange, type SqlDialect } from '../../server/src/subjects/filter/to-sql';
import { describeWithService, PG_URL, postgresRequirement } from '../helpers/services';

const SCHEMA = [
  'CREATE TABLE subjects (context TEXT NOT NULL, id TEXT NOT NULL, id_lc TEXT NOT NULL, attributes TEXT NOT NULL, version INTEGER NOT NULL, created TEXT NOT NULL, modified TEXT NOT NULL, PRIMARY KEY (context, id))',
  'CREATE TABLE subject_values (context TEXT NOT NULL, subject_id TEXT NOT NULL, name TEXT NOT NULL, value_lc TEXT NOT NULL)',
  'CREATE INDEX subject_values_lookup ON subject_values (context, name, value_lc)',
  'CREATE INDEX subject_values_owner ON subject_values (context, subject_id)',
];

const CTX = 'people';

const S = (uniqueId: string, attributes: Record<string, string | string[]>): FilterSubject => ({ uniqueId, attributes });

const SUBJECTS: FilterSubject[] = [
  S('jdoe', { mail: 'j@x.org', givenName: 'John', sn: 'Doe', roles: ['user', 'admin'] }),
  S('JSmith', { mail: 'J.Smith@X.ORG', givenName: 'Jane', sn: 'Smith', roles: ['user'] }),
  S('asmith', { mail: 'asmith@example.com', givenName: 'Adam', sn: 'Smith', roles: ['USER', 'auditor'] }),
  S('zoe', { mail: 'zoe@example.com', givenName: 'Zoë', sn: 'Ångström', roles: [] }),
  S('zoe2', { mail: 'zoe2@example.com', givenName: 'Zoe\u0308', sn: 'angstrom' }),
  S('percent', { mail: 'p@x.org', note: '100% sure', roles: ['user'] }),
  S('under', { mail: 'u@x.org', note: '50_50', code: 'a_b' }),
  S('under2', { note: '50-50', code: 'axb' }),
  S('back', { note: 'C:\\temp\\new', code: 'a\\b' }),
  S('back2', { note: 'C:/temp/new', code: 'a\\\\b' }),
  S('quote', { note: 'say "hi"', sn: "O'Brien" }),
  S('quote2', { note: "it's", sn: 'OBrien' }),
  S('strasse', { city: 'Straße', givenName: 'STRASSE' }),
  S('istanbul', { city: 'İstanbul', sn: 'IŞIK' }),
  S('tokyo', { city: '東京', givenName: '日本 語', sn: '😀 smile' }),
  S('greek', { givenName: 'ΣΟΦΊΑ', sn: 'σοφία' }),
  S('empty', { mail: '', note: '', roles: [''] }),
  S('blank', { mail: ' ', roles: ['', 'user'] }),
  S('dup', { roles: ['admin', 'ADMIN', 'Admin'] }),
  S('many', { roles: ['a', 'b', 'c', 'd', 'e', 'f', 'user'], mail: 'many@x.org' }),
  S('disabled', { disabled: 'true', mail: 'd@x.org' }),
  S('enabled', { disabled: 'FALSE', mail: 'e@x.org' }),
  S('sw-edge', { note: 'ab', code: 'ab\u{FFFF}', mail: 'abz' }),
  S('sw-edge2', { note: 'abc', code: 'ab\u{10FFFE}', mail: 'ab' }),
  S('sw-edge3', { note: 'a', code: 'aa', mail: 'b' }),
  S('user.name', { mail: 'user.name@x.org', roles: 'user' }),
  S('a+b', { mail: 'a+b@x.org', roles: 'Admin' }),
  S('x_y', { mail: 'x_y@x.org' }),
  S('upper', { mail: 'UPPER@X.ORG', givenName: 'JOHN' }),
  S('nothing', {}),
  S('shadow', { uniqueId: 'not-the-id', mail: 'shadow@x.org' }),
];

// Same ids, different data in another context: a filter must never reach across contexts.
const OTHER_CTX = 'other';
const OTHER: FilterSubject[] = [
  S('jdoe', { mail: 'nope@y.org', roles: ['nobody'] }),
  S('ghost', { mail: 'j@x.org', roles: ['admin', 'user'], note: '100% sure' }),
];

const FILTERS = [
  // SCIM's ordering operators (code-point order of the folded value; any value of a list)
  'mail gt "j"',
  'mail ge "J@X.ORG"',
  'mail lt "j@x.org"',
  'mail le ""',
  'mail ge ""',
  'roles lt "b"',
  'not (roles ge "user")',
  'sn gt "😀"',
  'sn lt "ｂ"',
  'givenName ge "zoë" and givenName le "ZOË"',
  'uniqueId gt "JDOE"',
  'uniqueId le "j"',
  'mail eq "j@x.org"',
  'mail eq "J@X.ORG"',
  'mail ne "j@x.org"',
  'mail eq ""',
  'mail ne ""',
  'mail pr',
  'not (mail pr)',
  'roles pr',
  'not (roles pr)',
  'roles eq "user"',
  'roles ne "user"',
  'roles eq "admin" and roles eq "user"',
  'roles eq "admin" or roles eq "auditor"',
  'not (roles eq "admin") and roles pr',
  'mail co "x.org"',
  'mail co "."',
  'mail co "smith"',
  'mail co ""',
  'mail sw "j"',
  'mail sw ""',
  'mail ew ".org"',
  'mail ew ""',
  'note co "%"',
  'note co "_"',
  'note co "0_5"',
  'code eq "a_b"',
  'code co "a_b"',
  'code co "\\\\"',
  'code eq "a\\\\b"',
  'code co "a\\\\\\\\b"',
  'note sw "c:\\\\"',
  'note ew "\\\\new"',
  'note co "\\"hi\\""',
  "note co \"'\"",
  'sn co "\'"',
  'note sw "a"',
  'note sw "ab"',
  'code sw "ab"',
  'mail sw "ab"',
  'mail sw "b"',
  'givenName eq "zoë"',
  'givenName eq "ZOE\\u0308"',
  'givenName sw "zo"',
  'sn eq "ångström"',
  'sn sw "Å"',
  'city eq "straße"',
  'givenName eq "strasse"',
  'city co "i̇"',
  'city sw "i"',
  'sn eq "ışık"',
  'city eq "東京"',
  'givenName co "本 語"',
  'sn sw "😀"',
  'givenName eq "σοφία"',
  'sn eq "ΣΟΦΊΑ"',
  'disabled eq true',
  'disabled eq false',
  'disabled ne true',
  'uniqueId eq "JDOE"',
  'uniqueId eq "jsmith"',
  'uniqueId ne "jdoe"',
  'uniqueId sw "j"',
  'uniqueId co "_"',
  'uniqueId co "."',
  'uniqueId ew "2"',
  'uniqueId pr',
  'not (uniqueId sw "z") and givenName sw "z"',
  'not (uniqueId sw "j")',
  'uniqueId eq "not-the-id"',
  'nonexistent pr',
  'not (nonexistent eq "x")',
  'Mail eq "j@x.org"',
  '(mail ew "x.org" or mail ew "example.com") and not (roles eq "user" or roles eq "admin")',
  'not (not (roles eq "ADMIN")) or (note pr and not (note co "%"))',
  'mail eq "j@x.org" or uniqueId eq "ghost"',
];

const EXPECTED: Record<string, string[]> = {
  'mail eq "J@X.ORG"': ['jdoe'],
  'roles eq "admin" and roles eq "user"': ['jdoe'],
  'note co "%"': ['percent'],
  'note co "_"': ['under'],
  'code co "\\\\"': ['back', 'back2'],
  'code eq "a\\\\b"': ['back'],
  'givenName eq "zoë"': ['zoe', 'zoe2'],
  'not (roles pr)': ['back', 'back2', 'disabled', 'empty', 'enabled', 'greek', 'istanbul', 'nothing', 'quote', 'quote2', 'shadow', 'strasse', 'sw-edge', 'sw-edge2', 'sw-edge3', 'tokyo', 'under', 'under2', 'upper', 'x_y', 'zoe', 'zoe2'],
  'mail sw "ab"': ['sw-edge', 'sw-edge2'],
  'code sw "ab"': ['sw-edge', 'sw-edge2'],
  'uniqueId eq "not-the-id"': [],
  'uniqueId eq "JDOE"': ['jdoe'],
  'mail eq "j@x.org" or uniqueId eq "ghost"': ['jdoe'],
};

const readAll = () => true;
const sorted = (ids: string[]) => [...ids].sort();
const inMemory = (node: FilterNode, subjects: FilterSubject[]) => sorted(subjects.filter((s) => matchesFilter(node, s)).map((s) => s.uniqueId));

/** One subjects row and one subject_values row per value (empty strings included), as the stores write them. */
function rowsOf(context: string, subject: FilterSubject) {
  const now = '2024-01-01T00:00:00.000Z';
  const subjectRow = [context, subject.uniqueId, normalizeValue(subject.uniqueId), JSON.stringify(subject.attributes), 1, now, now];
  const valueRows: string[][] = [];
  for (const [name, raw] of Object.entries(subject.attributes)) {
    for (const value of Array.isArray(raw) ? raw : [raw]) valueRows.push([context, subject.uniqueId, name, normalizeValue(value)]);
  }
  return { subjectRow, valueRows };
}

function selectSql(node: FilterNode, dialect: SqlDialect, context: string): { sql: string; params: unknown[] } {
  const params: unknown[] = [context];
  const where = filterToSql(node, dialect, params, context);
  const ctx = dialect === 'postgres' ? '$1' : '?';
  return { sql: `SELECT s.id FROM subjects s WHERE s.context = ${ctx} AND ${where} ORDER BY s.id`, params };
}

// ---- random data and filters over a small alphabet (shared by both dialects) ----

const ALPHABET = ['a', 'B', '%', '_', '\\', 'é', 'e\u0301', 'É', 'ß', 'İ', '😀', 'ｂ', ' ', "'"];
const smallString = fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 3 });
const ATTRS = ['a', 'b', 'c'];
const randomSubjects = fc.uniqueArray(
  fc.record({
    uniqueId: fc.constantFrom('u1', 'U2', 'u3', 'é4', 'x_5', 'Y%6', 'a', 'ab'),
    attributes: fc.dictionary(fc.constantFrom(...ATTRS), fc.oneof(smallString, fc.array(smallString, { maxLength: 3 })), { maxKeys: 3 }),
  }),
  { selector: (s) => s.uniqueId.toLowerCase(), maxLength: 8 },
);
const leaf: fc.Arbitrary<FilterNode> = fc.oneof(
  fc.record({
    op: fc.constantFrom(...COMPARE_OPS),
    attr: fc.constantFrom(...ATTRS, 'uniqueId', 'd'),
    value: fc.oneof(smallString, fc.constantFrom('u', 'U2', 'x_', '%6', 'é', 'a')),
  }),
  fc.record({ op: fc.constant('pr' as const), attr: fc.constantFrom(...ATTRS, 'uniqueId', 'd') }),
);
const randomFilter: fc.Memo<FilterNode> = fc.memo((n) =>
  n <= 1
    ? leaf
    : fc.oneof(
        leaf,
        fc.record({ op: fc.constantFrom('and' as const, 'or' as const), left: randomFilter(n - 1), right: randomFilter(n - 1) }),
        fc.record({ op: fc.constant('not' as const), expr: randomFilter(n - 1) }),
      ),
);
/** Through the parser too, so that text → tree → SQL is what is exercised. */
const reparse = (node: FilterNode) => parseFilter(formatFilter(node), readAll);

describe('filterToSql: SQLite', () => {
  let db: Database.Database;

  const insert = (context: string, subjects: FilterSubject[]) => {
    const insS = db.prepare('INSERT INTO subjects VALUES (?, ?, ?, ?, ?, ?, ?)');
    const insV = db.prepare('INSERT INTO subject_values VALUES (?, ?, ?, ?)');
    db.transaction(() => {
      for (const s of subjects) {
        const { subjectRow, valueRows } = rowsOf(context, s);
        insS.run(...subjectRow);
        for (const row of valueRows) insV.run(...row);
      }
    })();
  };
  const query = (node: FilterNode, context = CTX) => {
    const { sql, params } = selectSql(node, 'sqlite', context);
    return sorted(db.prepare(sql).pluck().all(...params) as string[]);
  };

  beforeAll(() => {
    db = new Database(':memory:');
    for (const stmt of SCHEMA) db.exec(stmt);
    insert(CTX, SUBJECTS);
    insert(OTHER_CTX, OTHER);
  });
  afterAll(() => db.close());

  test.each(FILTERS)('%s', (text) => {
    const node = parseFilter(text, readAll);
    const expected = inMemory(node, SUBJECTS);
    expect(query(node)).toEqual(expected);
    if (EXPECTED[text]) expect(expected).toEqual(sorted(EXPECTED[text]));
  });

  test('every curated expectation is in the table', () => {
    for (const text of Object.keys(EXPECTED)) expect(FILTERS).toContain(text);
  });

  test('values are bound, never interpolated; placeholders are ? in order', () => {
    const params: unknown[] = ['ctx'];
    const sql = filterToSql(parseFilter('mail eq "x\'); DROP TABLE subjects; --" or uniqueId sw "A"', readAll), 'sqlite', params, 'ctx');
    expect(sql).not.toContain('DROP');
    expect(sql).not.toContain('mail');
    expect(params).toEqual(['ctx', 'ctx', 'mail', "x'); drop table subjects; --", 'a', 'a\u{10FFFF}']);
    expect(sql.match(/\?/g)).toHaveLength(5);
  });

  test('random filters over random subjects give the same set in SQL and in memory', () => {
    let run = 0;
    fc.assert(
      fc.property(randomSubjects, randomFilter(5), (subjects, node) => {
        const context = `prop-${run++}`;
        insert(context, subjects);
        const parsed = reparse(node);
        expect(query(parsed, context)).toEqual(inMemory(parsed, subjects));
      }),
      { numRuns: 400 },
    );
  });

  test.each(['mail eq "j@x.org"', 'mail sw "j"'])('EXPLAIN QUERY PLAN of %s uses subject_values_lookup', (text) => {
    const { sql, params } = selectSql(parseFilter(text, readAll), 'sqlite', CTX);
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
    const details = plan.map((r) => r.detail);
    expect(details.some((d) => /\bv\b.*USING (COVERING )?INDEX subject_values_lookup \(context=\? AND name=\? AND value_lc[=>]/.test(d))).toBe(true);
    // Driven by the index: subjects are probed by primary key, never scanned, so cost does not grow with the context.
    expect(details.some((d) => /^SCAN s\b/.test(d))).toBe(false);
  });
});

describe('prefixRange', () => {
  test('normalises the prefix and tops it with U+10FFFF', () => {
    expect(prefixRange('ABC')).toEqual(['abc', 'abc\u{10FFFF}']);
    expect(prefixRange('Zoe\u0308')).toEqual(['zoë', 'zoë\u{10FFFF}']);
    expect(prefixRange('')).toEqual(['', '\u{10FFFF}']);
  });

  test('the upper bound sorts above every continuation in UTF-8 byte order', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 4 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }), (prefix, rest) => {
        fc.pre(!rest.startsWith('\u{10FFFF}'));
        const [low, high] = prefixRange(prefix);
        const value = Buffer.from(low + rest);
        expect(Buffer.compare(value, Buffer.from(low))).toBeGreaterThan(0);
        expect(Buffer.compare(value, Buffer.from(high))).toBeLessThan(0);
      }),
    );
  });
});

// ---- PostgreSQL: the same equivalence, when a server is reachable ----

const postgres = postgresRequirement();

describeWithService(postgres, 'filterToSql: PostgreSQL', () => {
  const schema = `svc_filter_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  let client: Client;

  const insert = async (context: string, subjects: FilterSubject[]) => {
    const subjectRows: unknown[][] = [];
    const valueRows: unknown[][] = [];
    for (const s of subjects) {
      const rows = rowsOf(context, s);
      subjectRows.push(rows.subjectRow);
      valueRows.push(...rows.valueRows);
    }
    const multi = async (table: string, rows: unknown[][]) => {
      if (rows.length === 0) return;
      const params: unknown[] = [];
      const tuples = rows.map((row) => `(${row.map((v) => `$${params.push(v)}`).join(', ')})`);
      await client.query(`INSERT INTO ${table} VALUES ${tuples.join(', ')}`, params);
    };
    await multi('subjects', subjectRows);
    await multi('subject_values', valueRows);
  };
  const query = async (node: FilterNode, context = CTX) => {
    const { sql, params } = selectSql(node, 'postgres', context);
    const r = await client.query<{ id: string }>(sql, params);
    return sorted(r.rows.map((row) => row.id));
  };

  beforeAll(async () => {
    client = new Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(`SET search_path TO ${schema}`);
    for (const stmt of SCHEMA) await client.query(stmt);
    await insert(CTX, SUBJECTS);
    await insert(OTHER_CTX, OTHER);
  });

  afterAll(async () => {
    if (!client) return;
    try {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    } finally {
      await client.end();
    }
  });

  test('the database collation compares by code point (the assumption behind the sw range)', async () => {
    // 'ab' + U+10FFFF must sort above 'ab' + any other character, and punctuation must not be ignored.
    const r = await client.query<{ ok: boolean }>(
      `SELECT ($1::text < $2::text) AND ($3::text < $2::text) AND ($4::text < $5::text) AS ok`,
      ['ab\u{10FFFE}', 'ab\u{10FFFF}', 'abz', 'a b', 'a-a'],
    );
    expect(r.rows[0]?.ok).toBe(true);
  });

  test.each(FILTERS)('%s', async (text) => {
    const node = parseFilter(text, readAll);
    expect(await query(node)).toEqual(inMemory(node, SUBJECTS));
  });

  test('placeholders are numbered from params.length + 1', () => {
    const params: unknown[] = ['a', 'b'];
    expect(filterToSql(parseFilter('uniqueId eq "X" and m co "%"', readAll), 'postgres', params, 'c')).toBe(
      "(s.id_lc = $3 AND s.id IN (SELECT v.subject_id FROM subject_values v WHERE v.context = $4 AND v.name = $5 AND v.value_lc LIKE $6 ESCAPE E'\\\\'))",
    );
    expect(params).toEqual(['a', 'b', 'x', 'c', 'm', '%\\%%']);
  });

  test('random filters over random subjects give the same set in SQL and in memory', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(randomSubjects, randomFilter(5), async (subjects, node) => {
        const context = `prop-${run++}`;
        await insert(context, subjects);
        const parsed = reparse(node);
        expect(await query(parsed, context)).toEqual(inMemory(parsed, subjects));
      }),
      { numRuns: 150 },
    );
  });
});

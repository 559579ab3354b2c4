/**
 * Translation of a parsed filter into a boolean SQL expression for the SQL subject stores.
 *
 * Target schema (decided):
 *   subjects       (context, id, id_lc, attributes, version, created, modified), PK (context, id)
 *   subject_values (context, subject_id, name, value_lc)
 *   INDEX subject_values_lookup (context, name, value_lc), INDEX subject_values_owner (context, subject_id)
 * The expression refers to the subjects table as `s`; `uniqueId` compares on `s.id_lc`, every other
 * attribute through a correlated `EXISTS` on `subject_values v`.
 *
 * Assumptions the store must honour for the SQL and the in-memory evaluation (evaluate.ts) to agree:
 *  - `s.id_lc` is `normalizeValue(id)`; `subject_values` holds one row per value of every attribute
 *    (an empty string included) with `value_lc = normalizeValue(value)`; no NUL characters.
 *  - `sw` is the index-friendly range `value_lc >= prefix AND value_lc < prefix || U+10FFFF`
 *    (`prefixRange`). That is exact when strings compare by code point: SQLite's BINARY collation
 *    (memcmp of UTF-8) and PostgreSQL with a "C"/"POSIX" or code-point "C.UTF-8" collation on
 *    `value_lc`. Under a linguistic collation (en_US…) the range can miss matches. A value whose
 *    character right after the prefix is U+10FFFF itself (a noncharacter) would not be matched:
 *    attributes.ts refuses noncharacters, so no stored value holds one (found by test/fuzz).
 *  - `co`/`ew` use LIKE with `%`, `_` and `\` escaped (`ESCAPE '\'`). SQLite's LIKE folds ASCII case,
 *    which is harmless because both sides are already lowercase; PostgreSQL's LIKE is exact. The
 *    PostgreSQL form writes the escape character as E'\\' so it holds whatever
 *    standard_conforming_strings says.
 *  - `gt ge lt le` are `> >= < <=` on the `_lc` column: the same code-point order as
 *    compareCodePoints in evaluate.ts (the binary/"C" collations above), served by the same index.
 *  - `meta.created`/`meta.lastModified` (ast.ts) compare the subjects' `created`/`modified` columns
 *    with metaInstant's value: ISO strings written by toISOString in SQLite (fixed width, so text order
 *    is time order), timestamptz in PostgreSQL.
 *  - Every generated predicate is NULL-free (NOT NULL columns, EXISTS), so `NOT` is two-valued.
 *
 * Values are never interpolated: each one is pushed onto `params` and referred to by `?` (SQLite) or
 * `$n` (PostgreSQL, numbered from `params.length + 1` at the time of the call, so a caller may put its
 * own parameters such as the context first).
 */
import { UNIQUE_ID_ATTR, isMetaAttr, META_CREATED, metaInstant, normalizeValue, type FilterNode } from './ast';

const SQL_COMPARISON = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' } as const;

export type SqlDialect = 'sqlite' | 'postgres';

/**
 * The distinct folded values of one attribute ($2) in a context ($1), both stores' subject_values:
 * a loose index scan of subject_values_lookup (context, name, value_lc), each step the next value
 * after the last one found, so it costs one index probe per distinct value, not a read of every
 * subject's (neither SQLite nor PostgreSQL skips through an index for a DISTINCT by itself).
 */
export const DISTINCT_VALUES_SQL = `WITH RECURSIVE d(v) AS (
    SELECT (SELECT value_lc FROM subject_values WHERE context = $1 AND name = $2 ORDER BY value_lc LIMIT 1)
    UNION ALL
    SELECT (SELECT value_lc FROM subject_values WHERE context = $1 AND name = $2 AND value_lc > d.v ORDER BY value_lc LIMIT 1) FROM d WHERE d.v IS NOT NULL
  ) SELECT v FROM d WHERE v IS NOT NULL`;

/** Sorts after every character (and so after every continuation of a prefix) in code-point order. */
export const PREFIX_RANGE_TOP = '\u{10FFFF}';

/**
 * Bounds of the half-open range `[low, high)` of `_lc` column values that start with `prefix`:
 * `low = normalizeValue(prefix)`, `high = low + U+10FFFF`. Pass the text as the user gave it; it is
 * normalised here. Used for `sw` and for the free-text prefix search of the stores.
 */
export function prefixRange(prefix: string): [low: string, high: string] {
  const low = normalizeValue(prefix);
  return [low, low + PREFIX_RANGE_TOP];
}

/** Escapes LIKE metacharacters for use with `ESCAPE '\'`. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Subjects having a value that meets `cond`, as an uncorrelated `IN` so that SQLite and PostgreSQL
 * drive the query from the subject_values_lookup index and probe the subjects' primary key, instead
 * of scanning the context and probing values per subject (which grows with the context's size).
 */
const HAVING_VALUE = (contextParam: string, name: string, cond: string) =>
  `s.id IN (SELECT v.subject_id FROM subject_values v WHERE v.context = ${contextParam} AND v.name = ${name} AND ${cond})`;

/**
 * A boolean SQL expression equivalent to `matchesFilter(node, subject)` for the subject row `s`.
 * Parameters are appended to `params` in the order their placeholders appear in the text.
 */
export function filterToSql(node: FilterNode, dialect: SqlDialect, params: unknown[], context: string): string {
  const bind = (value: string): string => {
    params.push(value);
    return dialect === 'postgres' ? `$${params.length}` : '?';
  };
  const escapeClause = dialect === 'postgres' ? "ESCAPE E'\\\\'" : "ESCAPE '\\'";

  const gen = (n: FilterNode): string => {
    switch (n.op) {
      case 'and':
      case 'or': {
        const left = gen(n.left);
        const right = gen(n.right);
        return `(${left} ${n.op === 'and' ? 'AND' : 'OR'} ${right})`;
      }
      case 'not':
        return `(NOT ${gen(n.expr)})`;
      default:
        break;
    }

    // The subject's timestamps: its own columns, compared as instants (ISO text in SQLite, all written
    // by toISOString; timestamptz in PostgreSQL). NOT NULL, so presence always holds.
    if (isMetaAttr(n.attr)) {
      const column = n.attr === META_CREATED ? 's.created' : 's.modified';
      if (n.op === 'pr') return `${column} IS NOT NULL`;
      const at = bind(metaInstant(n));
      return `${column} ${SQL_COMPARISON[n.op as keyof typeof SQL_COMPARISON]} ${dialect === 'postgres' ? `${at}::timestamptz` : at}`;
    }

    // A comparison or presence test: on s.id_lc for uniqueId, else on v.value_lc inside EXISTS.
    const onId = n.attr === UNIQUE_ID_ATTR;
    const col = onId ? 's.id_lc' : 'v.value_lc';
    // The attribute name's placeholder comes before the value's in the text, so it is bound first.
    const contextParam = onId ? '' : bind(context);
    const nameParam = onId ? '' : bind(n.attr);
    const wrap = (cond: string): string => (onId ? cond : HAVING_VALUE(contextParam, nameParam, cond));

    if (n.op === 'pr') return wrap(`${col} <> ''`);
    const needle = normalizeValue(n.value);
    switch (n.op) {
      case 'eq':
        return wrap(`${col} = ${bind(needle)}`);
      case 'ne':
        return onId ? `${col} <> ${bind(needle)}` : `(NOT ${wrap(`${col} = ${bind(needle)}`)})`;
      case 'sw': {
        const [low, high] = prefixRange(n.value);
        const lowP = bind(low);
        return wrap(`(${col} >= ${lowP} AND ${col} < ${bind(high)})`);
      }
      case 'co':
        return wrap(`${col} LIKE ${bind(`%${escapeLike(needle)}%`)} ${escapeClause}`);
      case 'ew':
        return wrap(`${col} LIKE ${bind(`%${escapeLike(needle)}`)} ${escapeClause}`);
      case 'gt':
        return wrap(`${col} > ${bind(needle)}`);
      case 'ge':
        return wrap(`${col} >= ${bind(needle)}`);
      case 'lt':
        return wrap(`${col} < ${bind(needle)}`);
      case 'le':
        return wrap(`${col} <= ${bind(needle)}`);
    }
  };

  return gen(node);
}

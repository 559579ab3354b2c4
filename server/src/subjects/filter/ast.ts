/**
 * The filter trees of svc: one parser (parse.ts) for RFC 7644 section 3.4.2.2, two trees.
 *
 * Design (issue 30):
 *  - `ScimFilter` is the whole SCIM grammar as written: comparisons `eq ne co sw ew gt ge lt le`,
 *    `pr`, `and`/`or` (binary, left-associative: `a and b and c` is `(a and b) and c`), `not ( … )`,
 *    grouping, and value paths `emails[type eq "work" and value co "@example.com"]`
 *    (`{op:'valuePath', attr, filter}`, the inner filter naming sub-attributes of `attr`). Attributes
 *    are `AttrPath`s: an optional schema URN, a name and an optional sub-attribute, each kept exactly
 *    as written (`sameAttrName`/`attrPathIs` compare them case-insensitively, as RFC 7643 section 2.1
 *    says). Values keep their JSON type (`FilterValue`: string, number, true, false, null). Entra
 *    ID's `emails[type eq "work"].value eq "x"` is read as `emails[type eq "work" and value eq "x"]`
 *    (the same subjects). `parseScimFilter` (SCIM's `filter=`) answers it; `parseScimPath` reads a
 *    PATCH `path` (RFC 7644 figure 7) with the same lexer and value-filter grammar.
 *  - `FilterNode` is the flat tree the stores compile (memory: evaluate.ts; SQLite and PostgreSQL:
 *    to-sql.ts; LDAP: to-ldap.ts): comparisons and `pr` on an svc attribute name (or `uniqueId`, or
 *    the subject's timestamps `meta.created`/`meta.lastModified`, compared as instants: metaInstant)
 *    with a string value, `and`/`or`/`not`. svc's subjects are flat, so this is what every filter becomes
 *    before a store sees it: the REST SEARCH's `parseFilter` refuses sub-attributes, value paths,
 *    schema URNs, numbers and null (400 invalid_filter) and gives this tree directly (true/false become
 *    the strings "true"/"false"); the SCIM transport maps a `ScimFilter` onto svc's attributes.
 *
 * Values are kept exactly as written (after JSON unescaping); evaluation and SQL translation compare
 * `normalizeValue()` of both sides, so the tree stays a faithful picture of the request. Ordering
 * (`gt ge lt le`) compares those normalised strings by Unicode code point (`compareCodePoints`):
 * svc's attributes are strings, so ISO 8601 timestamps written alike (same offset, same precision)
 * order in time, and numbers order as text ("10" < "9"), on every store alike.
 */

import { InvalidFilter } from '../../../../common/src/errors';

/** The special attribute that designates the subject's own id rather than one of its attributes. */
export const UNIQUE_ID_ATTR = 'uniqueId';

/**
 * The subject's own timestamps in the store's flat tree (SCIM's `meta.created` and
 * `meta.lastModified`, which the SCIM transport passes on as they are): no svc attribute is named so
 * (attribute names hold no "."), and the REST SEARCH's parser never gives them. They compare as
 * instants (metaInstant), not as text.
 */
export const META_CREATED = 'meta.created';
export const META_LAST_MODIFIED = 'meta.lastModified';
export type MetaAttr = typeof META_CREATED | typeof META_LAST_MODIFIED;

export function isMetaAttr(name: string): name is MetaAttr {
  return name === META_CREATED || name === META_LAST_MODIFIED;
}

const DATE_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)(Z|[+-]\d{2}:\d{2})?$/i;

/** A calendar date and time of day that exist (Date.parse takes February 30th as March 2nd). */
function realDate(text: string): boolean {
  const [y, mo, d, h, mi, se] = text.split(/[-T:.]/i).map(Number) as [number, number, number, number, number, number];
  const day = new Date(Date.UTC(y, mo - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d && h <= 23 && mi <= 59 && se <= 59;
}

/**
 * The instant a comparison on a timestamp names, in the stores' form (`toISOString()`: UTC,
 * milliseconds; a value without a zone is UTC), so that every store compares instants alike: the
 * stored ISO strings in memory, SQLite and the directory's evaluation, `timestamptz` on PostgreSQL.
 * InvalidFilter for anything but eq ne gt ge lt le with an RFC 3339 date-time (xsd:dateTime, as
 * RFC 7643 section 2.3.5 says).
 */
export function metaInstant(node: CompareNode): string {
  if (!['eq', 'ne', 'gt', 'ge', 'lt', 'le'].includes(node.op)) {
    throw new InvalidFilter(`"${node.op}" does not apply to the date-time ${node.attr}; use eq, ne, gt, ge, lt, le or pr`);
  }
  const m = DATE_TIME.exec(node.value);
  const time = m && realDate(m[1] as string) ? Date.parse(`${m[1]}${m[2] ?? 'Z'}`) : NaN;
  if (Number.isNaN(time)) throw new InvalidFilter(`${node.attr} compares with a date-time such as "2011-05-13T04:42:34Z", not ${JSON.stringify(node.value)}`);
  return new Date(time).toISOString();
}

export type CompareOp = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';

/** The ordering operators (a subset of CompareOp). */
export type OrderOp = 'gt' | 'ge' | 'lt' | 'le';

// ---- the store's flat tree ----

export interface CompareNode {
  op: CompareOp;
  attr: string;
  value: string;
}

export interface PresentNode {
  op: 'pr';
  attr: string;
}

export interface LogicalNode {
  op: 'and' | 'or';
  left: FilterNode;
  right: FilterNode;
}

export interface NotNode {
  op: 'not';
  expr: FilterNode;
}

export type FilterNode = CompareNode | PresentNode | LogicalNode | NotNode;

export const COMPARE_OPS: readonly CompareOp[] = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le'];
export const ORDER_OPS: readonly OrderOp[] = ['gt', 'ge', 'lt', 'le'];

export function isOrderOp(op: string): op is OrderOp {
  return op === 'gt' || op === 'ge' || op === 'lt' || op === 'le';
}

// ---- the whole SCIM grammar ----

/** `[uri ":"] name ["." sub]`, every part as written. */
export interface AttrPath {
  /** The path as written (`urn:ietf:params:scim:schemas:core:2.0:User:name.givenName`). */
  text: string;
  /** The schema URN without its final ":" (`urn:ietf:params:scim:schemas:core:2.0:User`), if given. */
  uri?: string;
  /** The attribute (`name`). */
  name: string;
  /** The sub-attribute (`givenName`), if given. */
  sub?: string;
}

/** A comparison value with its JSON type (RFC 7644's compValue). */
export type FilterValue = string | number | boolean | null;

export interface ScimCompare {
  op: CompareOp;
  attr: AttrPath;
  value: FilterValue;
}

export interface ScimPresent {
  op: 'pr';
  attr: AttrPath;
}

/** `attr[filter]`: some value of the multi-valued complex `attr` satisfies `filter` (sub-attribute names). */
export interface ScimValuePath {
  op: 'valuePath';
  attr: AttrPath;
  filter: ScimFilter;
}

export interface ScimLogical {
  op: 'and' | 'or';
  left: ScimFilter;
  right: ScimFilter;
}

export interface ScimNot {
  op: 'not';
  expr: ScimFilter;
}

export type ScimFilter = ScimCompare | ScimPresent | ScimValuePath | ScimLogical | ScimNot;

/** A PATCH path (RFC 7644 figure 7: `attrPath / valuePath [subAttr]`); `sub` after a value filter is `subAfter`. */
export interface ScimPath {
  attr: AttrPath;
  /** The value filter of `attr[filter]`, if any. */
  filter?: ScimFilter;
  /** The sub-attribute after the value filter (`members[value eq "x"].displayName`). */
  subAfter?: string;
}

/** Attribute names, sub-attributes and schema URNs compare case-insensitively (RFC 7643 section 2.1; ASCII). */
export function sameAttrName(a: string, b: string): boolean {
  return a.length === b.length && a.toLowerCase() === b.toLowerCase();
}

/**
 * Whether `path` names `name` (and `sub`; undefined: no sub-attribute), case-insensitively. A
 * schema URN given in `path` must equal `uri` when one is given here; a path without one matches.
 */
export function attrPathIs(path: AttrPath, name: string, sub?: string, uri?: string): boolean {
  if (!sameAttrName(path.name, name)) return false;
  if ((path.sub === undefined) !== (sub === undefined)) return false;
  if (path.sub !== undefined && sub !== undefined && !sameAttrName(path.sub, sub)) return false;
  return path.uri === undefined || uri === undefined || sameAttrName(path.uri, uri);
}

/** Renders a ScimFilter as canonical text (lowercase operators, full parentheses around and/or). */
export function formatScimFilter(node: ScimFilter): string {
  switch (node.op) {
    case 'and':
    case 'or':
      return `(${formatScimFilter(node.left)} ${node.op} ${formatScimFilter(node.right)})`;
    case 'not':
      return `not (${formatScimFilter(node.expr)})`;
    case 'valuePath':
      return `${node.attr.text}[${formatScimFilter(node.filter)}]`;
    case 'pr':
      return `${node.attr.text} pr`;
    default:
      return `${node.attr.text} ${node.op} ${JSON.stringify(node.value)}`;
  }
}

// ---- matching ----

/**
 * The matching form of a value (SCIM caseExact=false): Unicode NFC, then `String.prototype.toLowerCase()`
 * (locale-independent full Unicode lowercase mapping, not case folding: `ß` stays `ß`, `ẞ` becomes `ß`).
 * Stores must fill `subjects.id_lc` and `subject_values.value_lc` with exactly this function so that the
 * in-memory evaluation and the SQL translation agree.
 */
export function normalizeValue(value: string): string {
  return value.normalize('NFC').toLowerCase();
}

/**
 * Code-point order (negative, 0, positive), the order of SQLite's BINARY collation (memcmp of UTF-8)
 * and of PostgreSQL's "C" collation on svc's `_lc` columns. JavaScript's `<` compares UTF-16 code
 * units, which puts U+10000… before U+E000…U+FFFF; this does not.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (0xD800–0xDFFF) stands for a code point above every BMP one; only E000–FFFF lie between.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * One comparison of two strings as a filter compares them (caseExact=false): both in their matching
 * form (normalizeValue), ordered by code point. The stores compile the same rule into their queries;
 * this is it for values that are not a store's (a SCIM resource's constants, a value path's values).
 */
export function compareMatching(op: CompareOp, actual: string, expected: string): boolean {
  const a = normalizeValue(actual);
  const e = normalizeValue(expected);
  switch (op) {
    case 'eq': return a === e;
    case 'ne': return a !== e;
    case 'co': return a.includes(e);
    case 'sw': return a.startsWith(e);
    case 'ew': return a.endsWith(e);
    case 'gt': return compareCodePoints(a, e) > 0;
    case 'ge': return compareCodePoints(a, e) >= 0;
    case 'lt': return compareCodePoints(a, e) < 0;
    case 'le': return compareCodePoints(a, e) <= 0;
  }
}

/** The distinct attribute names a filter refers to (including `uniqueId`), in order of first use. */
export function filterAttributes(node: FilterNode): string[] {
  const seen = new Set<string>();
  const stack: FilterNode[] = [node];
  const order: string[] = [];
  // Depth-first, left to right, without recursion (trees are small, but this keeps it obviously bounded).
  while (stack.length > 0) {
    const n = stack.pop() as FilterNode;
    switch (n.op) {
      case 'and':
      case 'or':
        stack.push(n.right, n.left);
        break;
      case 'not':
        stack.push(n.expr);
        break;
      default:
        if (!seen.has(n.attr)) {
          seen.add(n.attr);
          order.push(n.attr);
        }
    }
  }
  return order;
}

/** Renders a tree back to canonical filter text (lowercase operators, full parentheses around and/or). */
export function formatFilter(node: FilterNode): string {
  switch (node.op) {
    case 'and':
    case 'or':
      return `(${formatFilter(node.left)} ${node.op} ${formatFilter(node.right)})`;
    case 'not':
      return `not (${formatFilter(node.expr)})`;
    case 'pr':
      return `${node.attr} pr`;
    default:
      return `${node.attr} ${node.op} ${JSON.stringify(node.value)}`;
  }
}

/**
 * Translation of a parsed SCIM filter into an RFC 4515 search filter for the directory store, and
 * the escaping of values in filters (RFC 4515) and in DNs (RFC 4514). The store asks with
 * `candidateFilter(node)` and checks what the directory answers with svc's own evaluation.
 *
 * Every value goes through escapeFilterValue: `*`, `(`, `)`, `\` and NUL become `\2a`, `\28`,
 * `\29`, `\5c`, `\00`, so a value is only ever compared, never read as filter syntax (`*` as a
 * wildcard, `)(` closing a clause). Other characters stay as they are (UTF-8 on the wire).
 *
 * Matching is the directory's: attributes compare case-insensitively when their schema says so
 * (caseIgnoreMatch and caseIgnoreSubstringsMatch for uid, mail, the names and svc's attributes),
 * which is what the SCIM subset asks. `ne` is `(!(a=v))`, true for a subject without the attribute,
 * and `not` is `(!…)`: LDAP filters are two-valued on a present or absent attribute, as SQL's EXISTS.
 * `ge`/`le` are RFC 4515's `>=`/`<=`, `gt`/`lt` those without equality (`(&(a>=v)(!(a=v)))`); they
 * need an ORDERING rule in the attribute's type (svc's own attributes have caseIgnoreOrderingMatch),
 * and candidateFilter asks only for the attribute's presence in their place (see there).
 */
import { UNIQUE_ID_ATTR, isMetaAttr, type FilterNode } from './ast';

/**
 * A filter that selects at least every subject `node` selects, under a directory's matching, which
 * folds more than svc's (compatibility forms: "ｂｅｎ" equals "ben"; insignificant spaces). A
 * comparison's answer only grows under it, so a negated one would shrink: each negated comparison
 * becomes "anything" (undefined), negations pushed down to the comparisons first (De Morgan). Presence
 * folds nothing and stays exact either way. undefined: every subject is a candidate.
 */
export function candidateFilter(node: FilterNode, negated = false): FilterNode | undefined {
  switch (node.op) {
    case 'not':
      return candidateFilter(node.expr, !negated);
    case 'and':
    case 'or': {
      const left = candidateFilter(node.left, negated);
      const right = candidateFilter(node.right, negated);
      // Negated, an and is an or of the negations (and the other way round).
      if ((node.op === 'and') !== negated) return left && right ? { op: 'and', left, right } : (left ?? right);
      return left && right ? { op: 'or', left, right } : undefined;
    }
    case 'pr':
      // The subject's timestamps are svc's bookkeeping (svcCreated, svcModified): svc's evaluation decides.
      if (isMetaAttr(node.attr)) return undefined;
      return negated ? { op: 'not', expr: node } : node;
    case 'ne':
      if (isMetaAttr(node.attr)) return undefined;
      return negated ? { ...node, op: 'eq' } : undefined;
    case 'gt':
    case 'ge':
    case 'lt':
    case 'le':
      if (isMetaAttr(node.attr)) return undefined;
      // The directory's ordering is not svc's (it folds compatibility forms and spaces before it
      // compares, and most attribute types have no ordering rule at all: Undefined, no match), so
      // it narrows nothing safely; what it does say is that the attribute is there.
      return negated ? undefined : { op: 'pr', attr: node.attr };
    default:
      return negated || isMetaAttr(node.attr) ? undefined : node;
  }
}

/** RFC 4515 section 3: the characters that must be escaped in an assertion value. */
export function escapeFilterValue(value: string): string {
  return value.replace(/[*()\\\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * RFC 4514 section 2.4: an attribute value inside a DN. `"+,;<>\` and NUL anywhere, `#` or a space
 * first, a space last; `=` too, which some parsers (ldapts's among them) mistake for a separator.
 */
export function escapeDnValue(value: string): string {
  let escaped = value.replace(/["+,;<>\\=\0]/g, (c) => (c === '\0' ? '\\00' : `\\${c}`));
  if (escaped.startsWith('#') || escaped.startsWith(' ')) escaped = `\\${escaped}`;
  if (escaped.endsWith(' ') && !escaped.endsWith('\\ ')) escaped = `${escaped.slice(0, -1)}\\ `;
  return escaped;
}

/**
 * The RFC 4515 filter of `node`; `attribute(name)` gives the directory attribute of an svc attribute
 * (`uniqueId` included).
 */
export function filterToLdap(node: FilterNode, attribute: (name: string) => string): string {
  switch (node.op) {
    case 'and':
      return `(&${filterToLdap(node.left, attribute)}${filterToLdap(node.right, attribute)})`;
    case 'or':
      return `(|${filterToLdap(node.left, attribute)}${filterToLdap(node.right, attribute)})`;
    case 'not':
      return `(!${filterToLdap(node.expr, attribute)})`;
    case 'pr':
      return `(${attribute(node.attr)}=*)`;
    default: {
      const a = attribute(node.attr);
      const v = escapeFilterValue(node.value);
      switch (node.op) {
        // A directory holds no empty value: `eq ""` matches nothing, `ne ""` everything.
        case 'eq':
          return v === '' ? '(!(objectClass=*))' : `(${a}=${v})`;
        case 'ne':
          return v === '' ? '(objectClass=*)' : `(!(${a}=${v}))`;
        case 'sw':
          return v === '' ? `(${a}=*)` : `(${a}=${v}*)`;
        case 'ew':
          return v === '' ? `(${a}=*)` : `(${a}=*${v})`;
        case 'co':
          return v === '' ? `(${a}=*)` : `(${a}=*${v}*)`;
        // Every value is ≥ "" and none (a directory holds no empty value) is ≤ "".
        case 'ge':
          return v === '' ? `(${a}=*)` : `(${a}>=${v})`;
        case 'gt':
          return v === '' ? `(${a}=*)` : `(&(${a}>=${v})(!(${a}=${v})))`;
        case 'le':
          return v === '' ? '(!(objectClass=*))' : `(${a}<=${v})`;
        case 'lt':
          return v === '' ? '(!(objectClass=*))' : `(&(${a}<=${v})(!(${a}=${v})))`;
      }
    }
  }
}

/** `uniqueId` → the entry's naming attribute; anything else through the map. */
export function ldapAttributeOf(idAttribute: string, map: Readonly<Record<string, string>>): (name: string) => string {
  return (name) => (name === UNIQUE_ID_ATTR ? idAttribute : (map[name] ?? name));
}

/**
 * In-memory evaluation of a parsed filter (the memory store; the SQL stores use to-sql.ts, which is
 * tested to select exactly the same subjects).
 *
 * Semantics (SCIM caseExact=false): both sides are compared in `normalizeValue()` form (NFC, then
 * lowercase). On a multi-valued attribute a comparison holds when ANY value satisfies it; `ne` is the
 * negation of `eq` (true when no value equals, and when the attribute is absent); `pr` holds when the
 * attribute has at least one non-empty value; `gt ge lt le` hold when ANY value orders so against the
 * comparison value, both normalised, by code point (compareCodePoints: the SQL stores' order).
 * `uniqueId` designates the subject's id; `meta.created` and `meta.lastModified` its timestamps, compared
 * as instants (ast.ts's metaInstant).
 */
import { UNIQUE_ID_ATTR, compareCodePoints, isMetaAttr, META_CREATED, metaInstant, normalizeValue, type CompareNode, type FilterNode } from './ast';

export interface FilterSubject {
  uniqueId: string;
  attributes: Record<string, string | string[]>;
  /** ISO 8601 (toISOString), for meta.created and meta.lastModified. */
  created?: string;
  modified?: string;
}

/** A comparison on a subject's timestamp: instants, in their common ISO form (ASCII, so `<` is their order). */
function compileMeta(node: CompareNode): (subject: FilterSubject) => boolean {
  const at = metaInstant(node);
  const get = node.attr === META_CREATED ? (s: FilterSubject) => s.created : (s: FilterSubject) => s.modified;
  const holds = (test: (v: string) => boolean) => (s: FilterSubject) => {
    const v = get(s);
    return v !== undefined && test(v);
  };
  switch (node.op) {
    case 'ne':
      return (s) => get(s) !== at;
    case 'gt':
      return holds((v) => v > at);
    case 'ge':
      return holds((v) => v >= at);
    case 'lt':
      return holds((v) => v < at);
    case 'le':
      return holds((v) => v <= at);
    default:
      return holds((v) => v === at);
  }
}

/** The values of `attr` in matching form ([] when absent; own properties only). */
function valuesOf(subject: FilterSubject, attr: string): string[] {
  if (attr === UNIQUE_ID_ATTR) return [normalizeValue(subject.uniqueId)];
  if (!Object.prototype.hasOwnProperty.call(subject.attributes, attr)) return [];
  const raw: unknown = subject.attributes[attr];
  const list = Array.isArray(raw) ? raw : [raw];
  return list.filter((v): v is string => typeof v === 'string').map(normalizeValue);
}

/** A predicate with the filter's comparison values normalised once (for scanning many subjects). */
export function compileFilter(node: FilterNode): (subject: FilterSubject) => boolean {
  switch (node.op) {
    case 'and': {
      const l = compileFilter(node.left);
      const r = compileFilter(node.right);
      return (s) => l(s) && r(s);
    }
    case 'or': {
      const l = compileFilter(node.left);
      const r = compileFilter(node.right);
      return (s) => l(s) || r(s);
    }
    case 'not': {
      const e = compileFilter(node.expr);
      return (s) => !e(s);
    }
    case 'pr': {
      const attr = node.attr;
      if (isMetaAttr(attr)) return (s) => (attr === META_CREATED ? s.created : s.modified) !== undefined;
      return (s) => valuesOf(s, attr).some((v) => v !== '');
    }
    default: {
      if (isMetaAttr(node.attr)) return compileMeta(node);
      const { attr, op } = node;
      const needle = normalizeValue(node.value);
      switch (op) {
        case 'eq':
          return (s) => valuesOf(s, attr).some((v) => v === needle);
        case 'ne':
          return (s) => !valuesOf(s, attr).some((v) => v === needle);
        case 'co':
          return (s) => valuesOf(s, attr).some((v) => v.includes(needle));
        case 'sw':
          return (s) => valuesOf(s, attr).some((v) => v.startsWith(needle));
        case 'ew':
          return (s) => valuesOf(s, attr).some((v) => v.endsWith(needle));
        case 'gt':
          return (s) => valuesOf(s, attr).some((v) => compareCodePoints(v, needle) > 0);
        case 'ge':
          return (s) => valuesOf(s, attr).some((v) => compareCodePoints(v, needle) >= 0);
        case 'lt':
          return (s) => valuesOf(s, attr).some((v) => compareCodePoints(v, needle) < 0);
        case 'le':
          return (s) => valuesOf(s, attr).some((v) => compareCodePoints(v, needle) <= 0);
      }
    }
  }
}

/** Whether `subject` satisfies the filter. */
export function matchesFilter(node: FilterNode, subject: FilterSubject): boolean {
  return compileFilter(node)(subject);
}

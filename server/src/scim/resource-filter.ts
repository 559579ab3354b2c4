/**
 * A SCIM filter (the tree of svc's one parser, subjects/filter/parse.ts) evaluated on one SCIM
 * resource as JSON: what a group list and a PATCH value path (`members[value eq "…"]`,
 * `emails[type eq "work"]`) select. Subjects are never filtered here: their filters go to the store
 * (users.ts translates them). RFC 7644 §3.4.2.2: attribute names case-insensitive; strings compared
 * case-insensitively (svc's attributes are caseExact=false, ids aside); a multi-valued attribute
 * matches when one of its values does.
 */
import { compareMatching, sameAttrName, type AttrPath, type FilterValue, type ScimCompare, type ScimFilter } from '../subjects/filter/ast';

type Json = unknown;

/** The member of an object named case-insensitively. */
export function memberOf(object: unknown, name: string): Json {
  if (!object || typeof object !== 'object' || Array.isArray(object)) return undefined;
  for (const [key, value] of Object.entries(object)) if (sameAttrName(key, name)) return value;
  return undefined;
}

/** The values an attribute path designates on `resource` (a multi-valued attribute gives each value; a sub-attribute, each value's). */
function valuesAt(resource: unknown, path: AttrPath): Json[] {
  const top = memberOf(resource, path.name);
  const list = Array.isArray(top) ? top : top === undefined || top === null ? [] : [top];
  if (path.sub === undefined) return list;
  return list.flatMap((v) => {
    const sub = memberOf(v, path.sub!);
    return Array.isArray(sub) ? sub : sub === undefined || sub === null ? [] : [sub];
  });
}

function compare(op: ScimCompare['op'], actual: Json, expected: FilterValue): boolean {
  if (expected === null) return op === 'eq' ? actual === null || actual === undefined : op === 'ne' ? actual !== null && actual !== undefined : false;
  if (typeof expected === 'boolean' || typeof actual === 'boolean') {
    const a = typeof actual === 'string' ? actual.toLowerCase() === 'true' : actual === true;
    const e = typeof expected === 'string' ? expected.toLowerCase() === 'true' : expected === true;
    return op === 'eq' ? a === e : op === 'ne' ? a !== e : false;
  }
  if (typeof expected === 'number' && typeof actual === 'number') {
    switch (op) {
      case 'eq': return actual === expected;
      case 'ne': return actual !== expected;
      case 'gt': return actual > expected;
      case 'ge': return actual >= expected;
      case 'lt': return actual < expected;
      case 'le': return actual <= expected;
      default: return false;
    }
  }
  if (actual === undefined || actual === null || typeof actual === 'object') return op === 'ne';
  return compareMatching(op, String(actual), String(expected));
}

/** Whether `resource` (a resource, or one value of a multi-valued complex attribute) satisfies `filter`. */
export function matchesResource(filter: ScimFilter, resource: unknown): boolean {
  switch (filter.op) {
    case 'and': return matchesResource(filter.left, resource) && matchesResource(filter.right, resource);
    case 'or': return matchesResource(filter.left, resource) || matchesResource(filter.right, resource);
    case 'not': return !matchesResource(filter.expr, resource);
    case 'valuePath': return valuesAt(resource, { ...filter.attr, sub: undefined }).some((value) => matchesResource(filter.filter, value));
    case 'pr': return valuesAt(resource, filter.attr).some((v) => v !== null && v !== '' && !(Array.isArray(v) && v.length === 0));
    default: {
      const values = valuesAt(resource, filter.attr);
      if (filter.op === 'ne') return values.length === 0 ? filter.value !== null : values.every((v) => compare('ne', v, filter.value));
      return values.some((v) => compare(filter.op, v, filter.value));
    }
  }
}

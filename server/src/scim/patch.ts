/**
 * RFC 7644 §3.5.2 PATCH applied to a resource's JSON representation: `add`, `replace`, `remove` (in
 * any letter case: Entra ID sends `Add`, `Replace`, `Remove`), with a `path` (an attribute, a
 * sub-attribute, a value path such as `members[value eq "…"]` or `emails[type eq "work"].value`, a
 * schema-URN-qualified name) or without one (the value's members, themselves paths: Entra's
 * `"name.givenName"` and URN-qualified keys). The caller maps the resulting JSON back onto svc's
 * attributes and writes only what changed, so an `add` of a value already there changes nothing
 * (RFC 7644 §3.5.2.1) and attributes svc does not keep fall away.
 */
import { InvalidRequest } from '../../../common/src/errors';
import { sameAttrName, type ScimFilter, type ScimPath } from '../subjects/filter/ast';
import { parseScimPath } from '../subjects/filter/parse';
import { matchesResource } from './resource-filter';
import { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, PATCH_OP, USER_SCHEMA } from './schema';

const SCHEMA_URNS = [USER_SCHEMA, GROUP_SCHEMA, ENTERPRISE_USER_SCHEMA];

type Json = unknown;
type JsonObject = Record<string, Json>;
export type PatchKind = 'add' | 'replace' | 'remove';

export interface PatchOperation {
  op: PatchKind;
  path?: string;
  value?: Json;
}

/** Attributes of svc's resources that are lists (RFC 7643 §4: multi-valued), whether or not the resource has them yet. */
const MULTI_VALUED = new Set(['emails', 'phonenumbers', 'ims', 'photos', 'addresses', 'groups', 'entitlements', 'roles', 'x509certificates', 'members', 'schemas']);

const invalidPath = (detail: string) => new InvalidRequest(detail, { extensions: { scimType: 'invalidPath' } });
const noTarget = (detail: string) => new InvalidRequest(detail, { extensions: { scimType: 'noTarget' } });
const invalidValue = (detail: string) => new InvalidRequest(detail, { extensions: { scimType: 'invalidValue' } });

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A PatchOp message's operations, checked (RFC 7644 §3.5.2): its schema, each op and its path. */
export function patchOperations(body: Json): PatchOperation[] {
  if (!isObject(body)) throw new InvalidRequest('a PatchOp message is a JSON object', { extensions: { scimType: 'invalidSyntax' } });
  const schemas = body.schemas;
  if (!Array.isArray(schemas) || !schemas.some((s) => typeof s === 'string' && sameAttrName(s, PATCH_OP))) throw new InvalidRequest(`schemas must name ${PATCH_OP}`, { extensions: { scimType: 'invalidSyntax' } });
  const operations = Object.entries(body).find(([k]) => sameAttrName(k, 'Operations'))?.[1];
  if (!Array.isArray(operations) || operations.length === 0) throw new InvalidRequest('Operations must list at least one operation', { extensions: { scimType: 'invalidSyntax' } });
  return operations.map((raw, i) => {
    if (!isObject(raw)) throw new InvalidRequest(`Operations[${i}] is not an object`, { extensions: { scimType: 'invalidSyntax' } });
    const member = (name: string) => Object.entries(raw).find(([k]) => sameAttrName(k, name));
    const op = member('op')?.[1];
    const kind = typeof op === 'string' ? op.toLowerCase() : undefined;
    if (kind !== 'add' && kind !== 'replace' && kind !== 'remove') throw new InvalidRequest(`Operations[${i}].op must be add, replace or remove`, { extensions: { scimType: 'invalidSyntax' } });
    const path = member('path')?.[1];
    if (path !== undefined && path !== null && typeof path !== 'string') throw invalidPath(`Operations[${i}].path must be a string`);
    const value = member('value');
    return { op: kind, ...(typeof path === 'string' && path.trim() !== '' ? { path } : {}), ...(value ? { value: value[1] } : {}) };
  });
}

/** The key of `object` that names `name` case-insensitively, or `name` itself for a new member. */
function keyOf(object: JsonObject, name: string): string {
  return Object.keys(object).find((k) => sameAttrName(k, name)) ?? name;
}

function sameValue(a: Json, b: Json): boolean {
  if (isObject(a) && isObject(b)) {
    // Multi-valued complex values are the same when their `value`s are (members, emails), else when equal.
    const va = a[keyOf(a, 'value')];
    const vb = b[keyOf(b, 'value')];
    if (va !== undefined && vb !== undefined) return typeof va === 'string' && typeof vb === 'string' ? va.toLowerCase() === vb.toLowerCase() : va === vb;
    return JSON.stringify(a) === JSON.stringify(b);
  }
  return a === b;
}

function asList(value: Json): Json[] {
  return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}

/** The object a schema-URN-qualified path lives in: an extension's own object, or the resource for its core schema. */
function container(resource: JsonObject, path: ScimPath, coreSchema: string, create: boolean): JsonObject | undefined {
  const uri = path.attr.uri;
  if (uri === undefined || sameAttrName(uri, coreSchema)) return resource;
  const key = keyOf(resource, uri);
  if (!isObject(resource[key])) {
    if (!create) return undefined;
    resource[key] = {};
  }
  return resource[key] as JsonObject;
}

/** An element made from a value filter's `eq` comparisons (Entra's add of `emails[type eq "work"].value` where there is none). */
function elementFrom(filter: ScimFilter): JsonObject | undefined {
  if (filter.op === 'eq' && filter.attr.sub === undefined) return { [filter.attr.name]: filter.value };
  if (filter.op === 'and') {
    const left = elementFrom(filter.left);
    const right = elementFrom(filter.right);
    return left && right ? { ...left, ...right } : undefined;
  }
  return undefined;
}

function applyAtPath(resource: JsonObject, op: PatchOperation, text: string, coreSchema: string): void {
  let path: ScimPath;
  try {
    path = parseScimPath(text);
  } catch (error) {
    throw invalidPath(`path ${JSON.stringify(text.slice(0, 200))}: ${(error as Error).message}`);
  }
  const target = container(resource, path, coreSchema, op.op !== 'remove');
  if (!target) return; // remove of an extension attribute never set: nothing to do
  const key = keyOf(target, path.attr.name);
  const multi = MULTI_VALUED.has(key.toLowerCase()) || Array.isArray(target[key]);

  if (path.filter) {
    const list = asList(target[key]);
    const matching = list.filter((element) => matchesResource(path.filter!, element));
    const sub = path.subAfter ?? path.attr.sub;
    if (op.op === 'remove') {
      if (sub === undefined) target[key] = list.filter((element) => !matching.includes(element));
      else for (const element of matching) if (isObject(element)) delete element[keyOf(element, sub)];
      return;
    }
    if (matching.length === 0) {
      // RFC 7644 §3.5.2.3 says noTarget; Entra ID adds `emails[type eq "work"].value` this way when there is none.
      const made = elementFrom(path.filter);
      if (!made) throw noTarget(`no value of ${path.attr.name} matches the path's filter`);
      const element = sub === undefined ? { ...made, ...(isObject(op.value) ? op.value : {}) } : { ...made, [sub]: op.value };
      target[key] = [...list, element];
      return;
    }
    for (const element of matching) {
      if (!isObject(element)) continue;
      if (sub !== undefined) element[keyOf(element, sub)] = op.value;
      else if (isObject(op.value)) Object.assign(element, op.value);
      else throw invalidValue(`the value for ${text} must be an object`);
    }
    return;
  }

  if (path.attr.sub !== undefined) {
    if (multi) {
      // `emails.value`: each value's sub-attribute.
      const list = asList(target[key]);
      for (const element of list) {
        if (!isObject(element)) continue;
        if (op.op === 'remove') delete element[keyOf(element, path.attr.sub)];
        else element[keyOf(element, path.attr.sub)] = op.value;
      }
      if (list.length === 0 && op.op !== 'remove') target[key] = [{ [path.attr.sub]: op.value }];
      return;
    }
    const parent = isObject(target[key]) ? (target[key] as JsonObject) : undefined;
    if (op.op === 'remove') {
      if (parent) delete parent[keyOf(parent, path.attr.sub)];
      return;
    }
    const object = parent ?? (target[key] = {});
    (object as JsonObject)[keyOf(object as JsonObject, path.attr.sub)] = op.value;
    return;
  }

  if (op.op === 'remove') {
    if (multi && op.value !== undefined && op.value !== null) {
      // Entra ID: remove of `members` with the members to remove as the value.
      const remove = asList(op.value);
      target[key] = asList(target[key]).filter((element) => !remove.some((r) => sameValue(element, r)));
    } else delete target[key];
    return;
  }
  if (multi) {
    const given = asList(op.value);
    if (op.op === 'replace') target[key] = given;
    else {
      const list = asList(target[key]);
      for (const value of given) if (!list.some((existing) => sameValue(existing, value))) list.push(value);
      target[key] = list;
    }
    return;
  }
  if (op.op === 'add' && isObject(op.value) && isObject(target[key])) Object.assign(target[key] as JsonObject, op.value);
  else target[key] = op.value;
}

/** Applies the operations in order to a copy of `resource`; any failure refuses them all (RFC 7644 §3.5.2). */
export function applyPatch(resource: JsonObject, operations: readonly PatchOperation[], coreSchema: string): JsonObject {
  const copy = structuredClone(resource);
  for (const op of operations) {
    if (op.path !== undefined) {
      if (op.op !== 'remove' && op.value === undefined) throw invalidValue(`${op.op} of ${op.path} needs a value`);
      applyAtPath(copy, op, op.path, coreSchema);
      continue;
    }
    if (op.op === 'remove') throw noTarget('remove needs a path');
    if (!isObject(op.value)) throw invalidValue(`${op.op} without a path takes an object of attributes`);
    for (const [name, value] of Object.entries(op.value)) {
      if (sameAttrName(name, 'schemas')) continue;
      // A schema URN alone names the object of that schema's attributes: the core schema's are the resource's own.
      if (sameAttrName(name, coreSchema) && isObject(value)) {
        for (const [inner, innerValue] of Object.entries(value)) applyAtPath(copy, { op: op.op, value: innerValue }, inner, coreSchema);
        continue;
      }
      if (SCHEMA_URNS.some((urn) => sameAttrName(urn, name))) {
        const key = keyOf(copy, name);
        copy[key] = op.op === 'add' && isObject(copy[key]) && isObject(value) ? { ...(copy[key] as JsonObject), ...value } : value;
        continue;
      }
      applyAtPath(copy, { op: op.op, value }, name, coreSchema);
    }
  }
  return copy;
}

/**
 * SCIM Users ↔ svc subjects (SPEC 14), through `scim.attributes`: which attribute of the context keeps
 * each User attribute. `id` is the uniqueId (immutable); `userName` its own attribute (a subject made
 * over REST without one shows its uniqueId); `emails` the primary (or first) address; `active` the
 * negation of a boolean attribute (`disabled`); `password` the context's password attribute, never
 * returned. A SCIM filter becomes the store's own flat filter here, so every store runs its own query.
 */
import { InvalidRequest } from '../../../common/src/errors';
import type { ContextConfig, ScimAttributeMap } from '../config/types';
import { compareMatching, META_CREATED, META_LAST_MODIFIED, sameAttrName, type AttrPath, type CompareNode, type CompareOp, type FilterNode, type FilterValue, type ScimFilter } from '../subjects/filter/ast';
import { valuesOf, type Attributes, type StoredSubject } from '../subjects/subject';
import { etagOf } from '../subjects/subject-operations';
import { ENTERPRISE_USER_SCHEMA, USER_SCHEMA } from './schema';

type JsonObject = Record<string, unknown>;

/** A node that holds for every subject, and one that holds for none (the flat tree has no constants). */
export const ALWAYS: FilterNode = { op: 'pr', attr: 'uniqueId' };
export const NEVER: FilterNode = { op: 'not', expr: ALWAYS };

/** `attr pr` beside a comparison that needs a value of `attr` (any but ne) says nothing more: dropped, so the comparison's index probe is the whole query. */
const implied = (presence: FilterNode, other: FilterNode): boolean =>
  presence.op === 'pr' && other.op !== 'pr' && other.op !== 'and' && other.op !== 'or' && other.op !== 'not' && other.op !== 'ne' && (other as CompareNode).attr === presence.attr;
const and = (left: FilterNode, right: FilterNode): FilterNode =>
  left === ALWAYS || implied(left, right) ? right : right === ALWAYS || implied(right, left) ? left : { op: 'and', left, right };
const or = (left: FilterNode, right: FilterNode): FilterNode => (left === NEVER ? right : right === NEVER ? left : { op: 'or', left, right });
const not = (expr: FilterNode): FilterNode => (expr === ALWAYS ? NEVER : expr === NEVER ? ALWAYS : { op: 'not', expr });

const invalidValue = (detail: string, path?: string) => new InvalidRequest(detail, { extensions: { scimType: 'invalidValue' }, ...(path ? { errors: [{ path, message: detail }] } : {}) });

/** A filter value as svc's string attributes hold it. */
const text = (value: FilterValue): string => (typeof value === 'string' ? value : String(value));

/** Entra ID sends booleans as "True"/"False": either form is taken. */
export function booleanOf(value: unknown, path: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalidValue(`${path} must be true or false`, path);
}

function constantCompare(op: CompareOp, actual: string | boolean, value: FilterValue): boolean {
  if (typeof actual === 'boolean') {
    const expected = typeof value === 'string' ? value.toLowerCase() === 'true' : value === true;
    return op === 'eq' ? actual === expected : op === 'ne' ? actual !== expected : false;
  }
  return compareMatching(op, actual, text(value));
}

export class UserMapping {
  /** The svc attribute of each mapped SCIM attribute this context defines. */
  readonly attr: Partial<Record<keyof ScimAttributeMap, string>> = {};
  readonly password?: string;

  constructor(
    readonly context: ContextConfig,
    map: ScimAttributeMap,
  ) {
    for (const [key, name] of Object.entries(map) as Array<[keyof ScimAttributeMap, string]>) {
      const definition = Object.hasOwn(context.definition.attributes, name) ? context.definition.attributes[name] : undefined;
      if (definition && definition.mutability !== 'writeOnly') this.attr[key] = name;
    }
    this.password = context.definition.password;
  }

  private one(attributes: Attributes, key: keyof ScimAttributeMap): string | undefined {
    const name = this.attr[key];
    return name === undefined ? undefined : valuesOf(attributes[name])[0];
  }

  /** The User resource of a subject (RFC 7643 §4.1), with `meta` (version = the subject's ETag). */
  toResource(subject: StoredSubject, location: string, groups: ReadonlyArray<{ id: string; name: string }> = [], groupsBase?: string): JsonObject {
    const a = subject.attributes;
    const givenName = this.one(a, 'name.givenName');
    const familyName = this.one(a, 'name.familyName');
    const mail = this.one(a, 'emails');
    const externalId = this.one(a, 'externalId');
    const displayName = this.one(a, 'displayName');
    const disabled = this.one(a, 'active');
    const name = givenName !== undefined || familyName !== undefined ? { ...(givenName !== undefined ? { givenName } : {}), ...(familyName !== undefined ? { familyName } : {}), formatted: [givenName, familyName].filter(Boolean).join(' ') } : undefined;
    return {
      schemas: [USER_SCHEMA],
      id: subject.uniqueId,
      ...(externalId !== undefined ? { externalId } : {}),
      userName: this.one(a, 'userName') ?? subject.uniqueId,
      ...(name ? { name } : {}),
      ...(displayName !== undefined ? { displayName } : {}),
      ...(mail !== undefined ? { emails: [{ value: mail, type: 'work', primary: true }] } : {}),
      active: disabled !== 'true',
      ...(groups.length ? { groups: groups.map((g) => ({ value: g.id, display: g.name, ...(groupsBase ? { $ref: `${groupsBase}/${encodeURIComponent(g.id)}` } : {}) })) } : {}),
      meta: { resourceType: 'User', created: subject.created, lastModified: subject.modified, location, version: `W/${etagOf(subject)}` },
    };
  }

  /**
   * svc's attributes from a User resource: for a creation, those it gives; for a replacement (PUT,
   * and a PATCH's result), every mapped attribute, null where it gives none (`active` and the
   * password stay as they are when absent). Unknown and read-only members (id, meta, groups,
   * extensions svc does not keep) are ignored, as RFC 7644 §3.5.1 allows.
   */
  attributesOf(resource: JsonObject, mode: 'create' | 'replace'): Record<string, unknown> {
    const member = (object: unknown, name: string): unknown => {
      if (!object || typeof object !== 'object' || Array.isArray(object)) return undefined;
      const found = Object.entries(object).find(([k]) => sameAttrName(k, name));
      return found?.[1];
    };
    const out: Record<string, unknown> = {};
    const put = (key: keyof ScimAttributeMap, value: unknown, path: string) => {
      const name = this.attr[key];
      if (name === undefined) return;
      if (value === undefined || value === null || value === '') {
        if (mode === 'replace') out[name] = null;
        return;
      }
      if (typeof value !== 'string') throw invalidValue(`${path} must be a string`, path);
      out[name] = value;
    };
    const userName = member(resource, 'userName');
    if (typeof userName !== 'string' || userName.trim() === '') throw invalidValue('userName is required', 'userName');
    put('userName', userName, 'userName');
    put('externalId', member(resource, 'externalId'), 'externalId');
    put('displayName', member(resource, 'displayName'), 'displayName');
    const name = member(resource, 'name');
    put('name.givenName', member(name, 'givenName'), 'name.givenName');
    put('name.familyName', member(name, 'familyName'), 'name.familyName');
    const emails = member(resource, 'emails');
    if (emails !== undefined && emails !== null && !Array.isArray(emails)) throw invalidValue('emails must be a list', 'emails');
    const list = (emails ?? []) as unknown[];
    const chosen = list.find((e) => member(e, 'primary') === true || member(e, 'primary') === 'True' || member(e, 'primary') === 'true') ?? list[0];
    put('emails', chosen === undefined ? undefined : member(chosen, 'value'), 'emails.value');
    const active = member(resource, 'active');
    if (active !== undefined && active !== null && this.attr.active) out[this.attr.active] = String(!booleanOf(active, 'active'));
    const password = member(resource, 'password');
    if (password !== undefined && password !== null) {
      if (typeof password !== 'string') throw invalidValue('password must be a string', 'password');
      if (!this.password) throw invalidValue(`context ${this.context.id} keeps no password`, 'password');
      out[this.password] = password;
    }
    return out;
  }

  /** The svc attribute `sortBy` names (RFC 7644 §3.4.2.3); the search refuses one that is not a search attribute. */
  sortAttribute(sortBy: string): string {
    const path = sortBy.replace(/^urn:ietf:params:scim:schemas:core:2\.0:User:/i, '');
    if (sameAttrName(path, 'id')) return 'uniqueId';
    const key = (Object.keys(this.attr) as Array<keyof ScimAttributeMap>).find((k) => sameAttrName(k, path) || (k === 'emails' && (sameAttrName(path, 'emails.value') || sameAttrName(path, 'emails'))));
    const name = key && this.attr[key];
    if (!name || key === 'active') throw new InvalidRequest(`sortBy ${sortBy.slice(0, 100)} is not an attribute svc sorts by`, { extensions: { scimType: 'invalidValue' } });
    return name;
  }

  /**
   * A SCIM filter as the store's flat filter: each User attribute becomes its svc attribute, value
   * paths over `emails` the conditions on `mail` (one address is kept: `type` is work, `primary` true),
   * `active` the negation of `disabled`, `userName` its attribute or, for a subject without one, its
   * uniqueId. Attributes svc does not keep hold for no subject (`title pr`, `meta.lastModified gt …`).
   */
  filter(node: ScimFilter, group: { nameOf(id: string): string | undefined }): FilterNode {
    switch (node.op) {
      case 'and': return and(this.filter(node.left, group), this.filter(node.right, group));
      case 'or': return or(this.filter(node.left, group), this.filter(node.right, group));
      case 'not': return not(this.filter(node.expr, group));
      case 'valuePath': {
        const within = node.attr;
        if (!sameAttrName(within.name, 'emails') && !sameAttrName(within.name, 'groups')) return NEVER;
        return this.within(node.filter, within, group);
      }
      default: return this.leaf(node.attr, undefined, node, group);
    }
  }

  private within(node: ScimFilter, parent: AttrPath, group: { nameOf(id: string): string | undefined }): FilterNode {
    switch (node.op) {
      case 'and': return and(this.within(node.left, parent, group), this.within(node.right, parent, group));
      case 'or': return or(this.within(node.left, parent, group), this.within(node.right, parent, group));
      case 'not': return not(this.within(node.expr, parent, group));
      case 'valuePath': throw new InvalidRequest('a value path cannot hold another', { extensions: { scimType: 'invalidFilter' } });
      default: return this.leaf(node.attr, parent, node, group);
    }
  }

  /** One comparison or presence test, on `attr` (a sub-attribute of `parent` inside a value path). */
  private leaf(attr: AttrPath, parent: AttrPath | undefined, node: Exclude<ScimFilter, { op: 'and' | 'or' | 'not' | 'valuePath' }>, group: { nameOf(id: string): string | undefined }): FilterNode {
    if (attr.uri !== undefined && !sameAttrName(attr.uri, USER_SCHEMA)) return sameAttrName(attr.uri, ENTERPRISE_USER_SCHEMA) ? NEVER : NEVER;
    const top = parent ? parent.name : attr.name;
    const sub = parent ? attr.name : attr.sub;
    const on = (name: string | undefined): FilterNode => {
      if (name === undefined) return NEVER;
      if (node.op === 'pr') return { op: 'pr', attr: name };
      if (node.value === null) return node.op === 'eq' ? not({ op: 'pr', attr: name }) : node.op === 'ne' ? { op: 'pr', attr: name } : NEVER;
      return { op: node.op, attr: name, value: text(node.value) };
    };
    // A sub-attribute svc returns as a constant of each value it keeps (emails' type and primary).
    const constant = (present: FilterNode, actual: string | boolean): FilterNode => (node.op === 'pr' ? present : node.value !== null && constantCompare(node.op, actual, node.value) ? present : NEVER);
    const is = (name: string, s?: string) => sameAttrName(top, name) && (s === undefined ? sub === undefined : sub !== undefined && sameAttrName(sub, s));

    if (is('id')) return on('uniqueId');
    if (is('userName')) {
      const name = this.attr.userName;
      if (name === undefined) return on('uniqueId');
      if (node.op === 'pr') return ALWAYS;
      // Equality, what an identity provider asks before every create, is two index probes: a uniqueId
      // is a login name like userName, and login names are unique together (case-insensitively), so
      // at most one subject claims the value either way, and it is the one whose login name it is.
      if (node.op === 'eq' && node.value !== null) return or(on(name), on('uniqueId'));
      const has: FilterNode = { op: 'pr', attr: name };
      return or(and(has, on(name)), and(not(has), on('uniqueId')));
    }
    if (is('externalId')) return on(this.attr.externalId);
    if (is('displayName')) return on(this.attr.displayName);
    if (is('name', 'givenName')) return on(this.attr['name.givenName']);
    if (is('name', 'familyName')) return on(this.attr['name.familyName']);
    if (is('emails') || is('emails', 'value')) return on(this.attr.emails);
    if (is('emails', 'type') || is('emails', 'primary') || is('emails', 'display')) {
      const mail = this.attr.emails;
      if (mail === undefined) return NEVER;
      const present: FilterNode = { op: 'pr', attr: mail };
      return is('emails', 'type') ? constant(present, 'work') : is('emails', 'primary') ? constant(present, true) : on(mail);
    }
    if (is('active')) {
      const disabled = this.attr.active;
      if (node.op === 'pr') return ALWAYS;
      if (disabled === undefined) return constant(ALWAYS, true);
      const isDisabled: FilterNode = { op: 'eq', attr: disabled, value: 'true' };
      if (node.op !== 'eq' && node.op !== 'ne') return NEVER;
      const wantsActive = typeof node.value === 'string' ? node.value.toLowerCase() === 'true' : node.value === true;
      return (node.op === 'eq') === wantsActive ? not(isDisabled) : isDisabled;
    }
    if (is('groups', 'display')) return on('roles');
    if (is('groups') || is('groups', 'value')) {
      if (node.op === 'pr') return { op: 'pr', attr: 'roles' };
      if (node.op !== 'eq' || typeof node.value !== 'string') return NEVER;
      const name = group.nameOf(node.value);
      return name === undefined ? NEVER : { op: 'eq', attr: 'roles', value: name };
    }
    if (is('meta', 'resourceType')) return constant(ALWAYS, 'User');
    if (is('meta', 'created')) return on(META_CREATED);
    if (is('meta', 'lastModified')) return on(META_LAST_MODIFIED);
    return NEVER;
  }
}

/** `attributes` / `excludedAttributes` (RFC 7644 §3.4.2.5) on one resource: `id`, `schemas` and `meta.resourceType` always stay. */
export function projectAttributes(resource: JsonObject, attributes: string[] | undefined, excluded: string[] | undefined, coreSchema: string): JsonObject {
  const strip = (name: string) => name.replace(new RegExp(`^${coreSchema.replace(/[.]/g, '\\.')}:`, 'i'), '');
  if (attributes?.length) {
    const wanted = attributes.map(strip);
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(resource)) {
      if (key === 'schemas' || key === 'id') {
        out[key] = value;
        continue;
      }
      const whole = wanted.some((w) => sameAttrName(w, key));
      const subs = wanted.filter((w) => w.toLowerCase().startsWith(`${key.toLowerCase()}.`)).map((w) => w.slice(key.length + 1));
      if (whole) out[key] = value;
      else if (subs.length && value && typeof value === 'object') {
        const pick = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).filter(([k]) => subs.some((s) => sameAttrName(s, k)))) : v);
        out[key] = Array.isArray(value) ? value.map(pick) : pick(value);
      }
    }
    return out;
  }
  if (excluded?.length) {
    const drop = excluded.map(strip);
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(resource)) {
      if (key !== 'schemas' && key !== 'id' && drop.some((d) => sameAttrName(d, key))) continue;
      const subs = drop.filter((d) => d.toLowerCase().startsWith(`${key.toLowerCase()}.`)).map((d) => d.slice(key.length + 1));
      if (subs.length && value && typeof value === 'object' && !Array.isArray(value)) out[key] = Object.fromEntries(Object.entries(value).filter(([k]) => !subs.some((s) => sameAttrName(s, k))));
      else out[key] = value;
    }
    return out;
  }
  return resource;
}

/** `attributes=a,b` as a list (RFC 7644 §3.9); none: undefined. */
export function attributeList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const list = value.split(',').map((a) => a.trim()).filter(Boolean);
  if (list.some((a) => !/^[A-Za-z0-9:._$-]+$/.test(a))) throw new InvalidRequest('attributes names attributes, separated by commas', { extensions: { scimType: 'invalidValue' } });
  return list;
}


/**
 * SCIM 2.0 (RFC 7643, RFC 7644; SPEC 14) at `{base}/scim/v2/{c}`: a transport beside REST and SOAP over
 * the same subject operations and the same policy decision point. Every route takes the same steps:
 * no URL check (nothing here names a target a check could take), the context id, the bearer token (a
 * USER session of the client's service subject for this one request: LoginService.scimSession), the
 * context, the body, the answer's media type, then the method's step, which asks the decision point
 * before it does anything. Any error is a SCIM error (common/src/scim-error.ts).
 */
import type { Request } from 'express';
import { InvalidRequest, MethodNotAllowed, NotFound, NotImplemented, PreconditionFailed } from '../../../../common/src/errors';
import { isContextId } from '../../../../common/src/principal-name';
import type { FilterNode, ScimFilter } from '../../subjects/filter/ast';
import { parseScimFilter } from '../../subjects/filter/parse';
import { applyPatch, patchOperations } from '../../scim/patch';
import { matchesResource } from '../../scim/resource-filter';
import { GROUP_SCHEMA, LIST_RESPONSE, resourceTypes, schemas, serviceProviderConfig, USER_SCHEMA } from '../../scim/schema';
import type { GroupLookup, StoredGroup } from '../../scim/groups';
import { attributeList, projectAttributes, UserMapping } from '../../scim/users';
import { valuesOf, type StoredSubject } from '../../subjects/subject';
import { isSubjectId } from '../../subjects/subject-id';
import { etagOf, type Actor } from '../../subjects/subject-operations';
import { randomUUID } from 'node:crypto';
import { readRawBody, queryParam } from '../body';
import { refuseUrlCheck } from '../checks';
import { logUnexpected } from '../error-handler';
import { runSteps, step, type Exchange, type Step } from '../exchange';
import { publicOrigin } from '../public-url';
import { notModified } from '../respond';
import type { ByMethod } from '../route-table';
import type { HttpServices } from '../services';
import { negotiateScim, scimBody, sendScim, sendScimError } from './respond';
import { bearerToken } from '../../scim/tokens';

export const SCIM_ROOT = '/scim/v2/:contextId';

type Services = Pick<HttpServices, 'log' | 'logins' | 'decisions' | 'subjects' | 'subjectOperations' | 'scimGroups' | 'peerOf'>;
type JsonObject = Record<string, unknown>;

const collection = (contextId: string) => `contexts/${contextId}/subjects`;
const one = (contextId: string, subjectId: string) => `contexts/${contextId}/subjects/${subjectId}`;

/** `{scheme}://{host}{base}/scim/v2/{c}`: where this request reached the context's service root. */
function serviceRoot(x: Exchange): string {
  return `${publicOrigin(x.req)}${x.config.server.contextRoot}/scim/v2/${encodeURIComponent(x.ids.contextId!)}`;
}

const actorOf = (x: Exchange): Actor => ({ session: x.state.session, peer: x.state.peer });

const mappingOf = (s: Services, x: Exchange) => new UserMapping(s.subjects.context(x.ids.contextId!).config, x.config.scim.attributes);

/** An ETag as SCIM writes it: weak, the subject's (or group's) version (RFC 7644 §3.14). */
const weakTag = (version: number) => `W/"${version}"`;

/** `startIndex` (1-based) and `count` (at most `scim.maxResults`, its default too), RFC 7644 §3.4.2.4: lenient, as the RFC says. */
function paging(req: Request, maxResults: number): { startIndex: number; count: number } {
  const number = (name: string): number | undefined => {
    const value = queryParam(req, name);
    if (value === undefined) return undefined;
    if (!/^-?\d{1,9}$/.test(value.trim())) throw new InvalidRequest(`${name} must be an integer`, { extensions: { scimType: 'invalidValue' } });
    return Number(value);
  };
  const startIndex = Math.max(1, number('startIndex') ?? 1);
  const count = Math.min(maxResults, Math.max(0, number('count') ?? maxResults));
  return { startIndex, count };
}

function sortOrder(req: Request): 'asc' | 'desc' | undefined {
  const order = queryParam(req, 'sortOrder');
  if (order === undefined) return undefined;
  if (/^ascending$/i.test(order)) return 'asc';
  if (/^descending$/i.test(order)) return 'desc';
  throw new InvalidRequest('sortOrder is ascending or descending', { extensions: { scimType: 'invalidValue' } });
}

function parseFilterParam(req: Request): ScimFilter | undefined {
  const text = queryParam(req, 'filter');
  if (text === undefined || text.trim() === '') return undefined;
  return parseScimFilter(text);
}

function listResponse(resources: JsonObject[], total: number, startIndex: number): JsonObject {
  return { schemas: [LIST_RESPONSE], totalResults: total, itemsPerPage: resources.length, startIndex, Resources: resources };
}

function projection(req: Request): { attributes?: string[]; excluded?: string[] } {
  return { attributes: attributeList(queryParam(req, 'attributes')), excluded: attributeList(queryParam(req, 'excludedAttributes')) };
}

/** Only the attributes whose value changes: a PUT or PATCH that changes nothing writes nothing (an `add` already there: RFC 7644 §3.5.2.1). */
function changed(subject: StoredSubject, attributes: Record<string, unknown>, password: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(attributes)) {
    const current = subject.attributes[name];
    if (name === password) out[name] = value;
    else if (value === null ? current !== undefined : JSON.stringify(value) !== JSON.stringify(current)) out[name] = value;
  }
  return out;
}

// ---- Users ----

/** The request's lookup of users' groups (each role looked up once per request). */
const lookups = new WeakMap<Exchange, GroupLookup>();
function groupLookup(s: Services, x: Exchange): GroupLookup {
  let lookup = lookups.get(x);
  if (!lookup) lookups.set(x, (lookup = s.scimGroups.lookup(x.ids.contextId!)));
  return lookup;
}

async function userResource(s: Services, x: Exchange, mapping: UserMapping, subject: StoredSubject): Promise<JsonObject> {
  const root = serviceRoot(x);
  const groups = await groupLookup(s, x).of(subject);
  return mapping.toResource(subject, `${root}/Users/${encodeURIComponent(subject.uniqueId)}`, groups.map((g) => ({ id: g.id, name: g.name })), `${root}/Groups`);
}

async function sendUser(s: Services, x: Exchange, mapping: UserMapping, status: number, subject: StoredSubject): Promise<void> {
  const resource = await userResource(s, x, mapping, subject);
  const { attributes, excluded } = projection(x.req);
  const headers: Record<string, string> = { ETag: weakTag(subject.version) };
  if (status === 201) headers.Location = (resource.meta as { location: string }).location;
  sendScim(x.req, x.res, status, projectAttributes(resource, attributes, excluded, USER_SCHEMA), headers);
}

/** The uniqueId of a new user: its userName when that is a valid, free subject id; otherwise a new UUID (SPEC 14). */
async function newUserId(s: Services, contextId: string, userName: unknown): Promise<string> {
  if (typeof userName === 'string' && isSubjectId(userName) && !s.subjects.isReserved(userName)) {
    // Every subject claims its uniqueId as a login name (folded), so one lookup says whether the name is free as an id and as a login name.
    if (!(await s.subjects.findByLoginName(contextId, userName))) return userName;
  }
  return randomUUID();
}

const listUsers = (s: Services): Step =>
  step('listUsers', async (x) => {
    const contextId = x.ids.contextId!;
    await s.decisions.authorize(x.state, 'SEARCH', collection(contextId));
    const mapping = mappingOf(s, x);
    const filter = parseFilterParam(x.req);
    // A filter on groups names them by id: the context's groups, read once for it.
    const groupNames = filter && /groups/i.test(queryParam(x.req, 'filter') ?? '') ? new Map((await s.scimGroups.list(contextId)).map((g) => [g.id, g.name])) : new Map<string, string>();
    const tree: FilterNode | undefined = filter && mapping.filter(filter, { nameOf: (id) => groupNames.get(id) });
    const sortBy = queryParam(x.req, 'sortBy');
    const { startIndex, count } = paging(x.req, x.config.scim.maxResults);
    const page = await s.subjects.search(contextId, { tree, sort: sortBy === undefined ? undefined : mapping.sortAttribute(sortBy), order: sortOrder(x.req), offset: startIndex - 1, quantity: Math.max(count, 1) });
    const results = count === 0 ? [] : page.results;
    await groupLookup(s, x).load(results);
    const { attributes, excluded } = projection(x.req);
    const resources = await Promise.all(results.map(async (subject) => projectAttributes(await userResource(s, x, mapping, subject), attributes, excluded, USER_SCHEMA)));
    sendScim(x.req, x.res, 200, listResponse(resources, page.total, startIndex));
  });

const createUser = (s: Services): Step =>
  step('createUser', async (x) => {
    const contextId = x.ids.contextId!;
    await s.decisions.authorize(x.state, 'CREATE', collection(contextId));
    const body = requireBody(x);
    const mapping = mappingOf(s, x);
    const attributes = mapping.attributesOf(body, 'create');
    const created = await s.subjectOperations.create(actorOf(x), contextId, { uniqueId: await newUserId(s, contextId, body.userName ?? memberNamed(body, 'userName')), attributes });
    // A SCIM client writes as an admin (never a registrant awaiting its address's verification).
    if (!('uniqueId' in created)) throw new Error('a SCIM creation took the registrant path');
    await sendUser(s, x, mapping, 201, created);
  });

function memberNamed(body: JsonObject, name: string): unknown {
  return Object.entries(body).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
}

function requireBody(x: Exchange): JsonObject {
  const body = scimBody(x.req);
  if (!body) throw new InvalidRequest('a JSON body is required', { extensions: { scimType: 'invalidSyntax' } });
  return body;
}

/** A user's id from the path: one that cannot be a subject id names no user (404). */
function userId(x: Exchange): string {
  const id = x.ids.subjectId!;
  if (id === '.search') throw new NotImplemented('POST /.search is not offered: use GET with filter');
  if (!isSubjectId(id)) throw new NotFound(`user ${x.ids.subjectId!.slice(0, 256)} not found`);
  return id;
}

const readUser = (s: Services): Step =>
  step('readUser', async (x) => {
    const contextId = x.ids.contextId!;
    const id = userId(x);
    await s.decisions.authorize(x.state, 'READ', one(contextId, id));
    const subject = await s.subjects.read(contextId, id);
    if (notModified(x.req, etagOf(subject))) return sendScim(x.req, x.res, 304, undefined, { ETag: weakTag(subject.version) });
    await sendUser(s, x, mappingOf(s, x), 200, subject);
  });

/** PUT and PATCH: the new attributes from the current subject, written when any changed (If-Match honoured either way). */
async function rewriteUser(s: Services, x: Exchange, next: (mapping: UserMapping, current: StoredSubject) => Promise<Record<string, unknown>> | Record<string, unknown>): Promise<void> {
  const contextId = x.ids.contextId!;
  const id = userId(x);
  await s.decisions.authorize(x.state, 'UPDATE', one(contextId, id));
  const mapping = mappingOf(s, x);
  const current = await s.subjects.read(contextId, id);
  const attributes = changed(current, await next(mapping, current), mapping.password);
  const ifMatch = x.req.headers['if-match'];
  if (Object.keys(attributes).length === 0) {
    if (ifMatch !== undefined && ifMatch.trim() !== '*' && ifMatch.replace(/^\s*W\//, '').trim() !== etagOf(current)) {
      throw new PreconditionFailed('the user has changed');
    }
    return sendUser(s, x, mapping, 200, current);
  }
  const updated = await s.subjectOperations.update(actorOf(x), contextId, id, { attributes }, ifMatch);
  await sendUser(s, x, mapping, 200, updated);
}

const replaceUser = (s: Services): Step =>
  step('replaceUser', (x) => {
    const body = requireBody(x);
    return rewriteUser(s, x, (mapping) => mapping.attributesOf(body, 'replace'));
  });

const patchUser = (s: Services): Step =>
  step('patchUser', (x) => {
    const operations = patchOperations(requireBody(x));
    return rewriteUser(s, x, async (mapping, current) => {
      const resource = await userResource(s, x, mapping, current);
      return mapping.attributesOf(applyPatch(resource, operations, USER_SCHEMA), 'replace');
    });
  });

const deleteUser = (s: Services): Step =>
  step('deleteUser', async (x) => {
    const contextId = x.ids.contextId!;
    const id = userId(x);
    await s.decisions.authorize(x.state, 'DELETE', one(contextId, id));
    await s.subjectOperations.delete(actorOf(x), contextId, id);
    sendScim(x.req, x.res, 204, undefined);
  });

// ---- Groups ----

/** Groups are the context's roles: reading them is a SEARCH of its subjects, writing them an UPDATE of them. */
async function groupResource(s: Services, x: Exchange, group: StoredGroup, withMembers: boolean): Promise<JsonObject> {
  const contextId = x.ids.contextId!;
  const root = serviceRoot(x);
  const mapping = mappingOf(s, x);
  const members = withMembers ? await s.scimGroups.members(contextId, group.name) : [];
  return {
    schemas: [GROUP_SCHEMA],
    id: group.id,
    displayName: group.name,
    ...(withMembers ? { members: members.map((m) => ({ value: m.uniqueId, display: valuesOf(m.attributes[mapping.attr.userName ?? ''])[0] ?? m.uniqueId, type: 'User', $ref: `${root}/Users/${encodeURIComponent(m.uniqueId)}` })) } : {}),
    meta: { resourceType: 'Group', created: group.created, lastModified: group.modified, location: `${root}/Groups/${encodeURIComponent(group.id)}`, version: weakTag(group.version) },
  };
}

const wantsMembers = (req: Request): boolean => {
  const { attributes, excluded } = projection(req);
  if (attributes?.length) return attributes.some((a) => /(^|:)members(\.|$)/i.test(a));
  return !excluded?.some((a) => /(^|:)members$/i.test(a));
};

async function sendGroup(s: Services, x: Exchange, status: number, group: StoredGroup): Promise<void> {
  const resource = await groupResource(s, x, group, wantsMembers(x.req));
  const { attributes, excluded } = projection(x.req);
  const headers: Record<string, string> = { ETag: weakTag(group.version) };
  if (status === 201) headers.Location = (resource.meta as { location: string }).location;
  sendScim(x.req, x.res, status, projectAttributes(resource, attributes, excluded, GROUP_SCHEMA), headers);
}

/** The members a Group document names (`members[].value`), as subject ids. */
function memberIds(body: JsonObject): string[] {
  const members = memberNamed(body, 'members');
  if (members === undefined || members === null) return [];
  if (!Array.isArray(members)) throw new InvalidRequest('members must be a list', { extensions: { scimType: 'invalidValue' } });
  return members.map((m, i) => {
    const value = m && typeof m === 'object' ? memberNamed(m as JsonObject, 'value') : undefined;
    if (typeof value !== 'string') throw new InvalidRequest(`members[${i}].value must be a user id`, { extensions: { scimType: 'invalidValue' } });
    return value;
  });
}

function displayNameOf(body: JsonObject): string {
  const name = memberNamed(body, 'displayName');
  if (typeof name !== 'string') throw new InvalidRequest('displayName is required', { extensions: { scimType: 'invalidValue' } });
  return name;
}

const listGroups = (s: Services): Step =>
  step('listGroups', async (x) => {
    const contextId = x.ids.contextId!;
    await s.decisions.authorize(x.state, 'SEARCH', collection(contextId));
    const filter = parseFilterParam(x.req);
    const { startIndex, count } = paging(x.req, x.config.scim.maxResults);
    const withMembers = wantsMembers(x.req) || (filter !== undefined && /members/i.test(queryParam(x.req, 'filter') ?? ''));
    let groups = await s.scimGroups.list(contextId);
    const sortBy = queryParam(x.req, 'sortBy');
    if (sortBy !== undefined && !/^(urn:ietf:params:scim:schemas:core:2\.0:Group:)?displayName$/i.test(sortBy) && !/^id$/i.test(sortBy)) throw new InvalidRequest(`sortBy ${sortBy.slice(0, 100)} is not an attribute groups sort by`, { extensions: { scimType: 'invalidValue' } });
    if (sortBy !== undefined && /^id$/i.test(sortBy)) groups = [...groups].sort((a, b) => (a.id < b.id ? -1 : 1));
    if (sortOrder(x.req) === 'desc') groups = [...groups].reverse();
    let resources: JsonObject[] = [];
    for (const group of groups) {
      const resource = await groupResource(s, x, group, withMembers);
      if (!filter || matchesResource(filter, resource)) resources.push(resource);
    }
    const total = resources.length;
    resources = resources.slice(startIndex - 1, startIndex - 1 + count);
    const { attributes, excluded } = projection(x.req);
    sendScim(x.req, x.res, 200, listResponse(resources.map((r) => projectAttributes(r, attributes, excluded, GROUP_SCHEMA)), total, startIndex));
  });

const createGroup = (s: Services): Step =>
  step('createGroup', async (x) => {
    const contextId = x.ids.contextId!;
    await s.decisions.authorize(x.state, 'UPDATE', collection(contextId));
    const body = requireBody(x);
    const group = await s.scimGroups.create(x.state, contextId, displayNameOf(body), memberIds(body));
    await sendGroup(s, x, 201, group);
  });

const groupId = (x: Exchange) => x.ids.groupId!;

const readGroup = (s: Services): Step =>
  step('readGroup', async (x) => {
    const contextId = x.ids.contextId!;
    await s.decisions.authorize(x.state, 'SEARCH', collection(contextId));
    const group = await s.scimGroups.get(contextId, groupId(x));
    if (notModified(x.req, `"${group.version}"`)) return sendScim(x.req, x.res, 304, undefined, { ETag: weakTag(group.version) });
    await sendGroup(s, x, 200, group);
  });

const replaceGroup = (s: Services): Step =>
  step('replaceGroup', async (x) => {
    const contextId = x.ids.contextId!;
    await s.decisions.authorize(x.state, 'UPDATE', collection(contextId));
    const body = requireBody(x);
    const group = await s.scimGroups.change(x.state, contextId, groupId(x), { name: displayNameOf(body), members: memberIds(body) }, x.req.headers['if-match']);
    await sendGroup(s, x, 200, group);
  });

const patchGroup = (s: Services): Step =>
  step('patchGroup', async (x) => {
    const contextId = x.ids.contextId!;
    await s.decisions.authorize(x.state, 'UPDATE', collection(contextId));
    const operations = patchOperations(requireBody(x));
    const current = await s.scimGroups.get(contextId, groupId(x));
    const next = applyPatch(await groupResource(s, x, current, true), operations, GROUP_SCHEMA);
    const group = await s.scimGroups.change(x.state, contextId, current.id, { name: displayNameOf(next), members: memberIds(next) }, x.req.headers['if-match']);
    await sendGroup(s, x, 200, group);
  });

const deleteGroup = (s: Services): Step =>
  step('deleteGroup', async (x) => {
    const contextId = x.ids.contextId!;
    await s.decisions.authorize(x.state, 'UPDATE', collection(contextId));
    await s.scimGroups.delete(x.state, contextId, groupId(x));
    sendScim(x.req, x.res, 204, undefined);
  });

// ---- discovery (RFC 7644 §4): any provisioning client of the context reads it ----

const discovery = (s: Services, name: string, answer: (x: Exchange, root: string) => JsonObject | undefined): Step =>
  step(name, async (x) => {
    await s.decisions.authorize(x.state, 'READ', `contexts/${x.ids.contextId!}`);
    const body = answer(x, serviceRoot(x));
    if (!body) throw new NotFound('no such resource');
    sendScim(x.req, x.res, 200, body);
  });

const byId = (list: JsonObject[], id: string | undefined) => (id === undefined ? undefined : list.find((r) => String(r.id).toLowerCase() === id.toLowerCase()));

// ---- the steps every SCIM route takes ----

/** The context id (an impossible one names no service root: 404), the bearer token's session, then the context. */
const scimAuthenticate = (s: Services): Step =>
  step('scimAuthenticate', async (x) => {
    const contextId = x.ids.contextId!;
    if (!isContextId(contextId)) throw new NotFound('no such SCIM service root');
    const peer = s.peerOf(x);
    x.state.peer = peer;
    x.state.sessionExpired = false;
    x.state.session = await s.logins.scimSession(bearerToken(x.req.headers.authorization), contextId, peer);
    s.subjects.context(contextId);
  });

const notOffered = (what: string) =>
  step('notImplemented', () => {
    throw new NotImplemented(`${what} is not offered (ServiceProviderConfig says what is)`);
  });

/** A route's steps, their errors answered as SCIM errors. */
function scim(s: Services, methods: ByMethod & { PATCH?: readonly Step[] }): Step[] {
  const inner: Step[] = [
    refuseUrlCheck('nothing in SCIM can be checked by URL'),
    scimAuthenticate(s),
    step('readBody', ({ req, res, config }) => readRawBody(req, res, config.settings.bodyLimitBytes)),
    step('negotiate', ({ req }) => negotiateScim(req)),
    step(
      'byMethod',
      (x) => {
        const method = x.req.method as keyof typeof methods;
        const chosen = methods[method] ?? (x.req.method === 'HEAD' ? methods.GET : undefined);
        if (!chosen) {
          x.res.setHeader('Allow', Object.keys(methods).join(', '));
          throw new MethodNotAllowed(`${x.req.method} is not supported here`);
        }
        return runSteps(chosen, x);
      },
      methods as Record<string, readonly Step[]>,
    ),
  ];
  return [
    step(
      'scim',
      async (x) => {
        try {
          await runSteps(inner, x);
        } catch (error) {
          logUnexpected(s.log, error, x.req);
          if (x.res.headersSent) return void x.res.destroy();
          sendScimError(x.req, x.res, error);
        }
      },
      { all: inner },
    ),
  ];
}

/** Below the service root: `{root}/` (a query at the root, written with its slash) is 501; anything else 404. */
const unknownResource = step('unknownResource', (x) => {
  if (x.path.endsWith(`/${x.ids.contextId}/`)) throw new NotImplemented('A query at the service root is not offered (ServiceProviderConfig says what is)');
  throw new NotFound('no such SCIM resource');
});

/** The SCIM routes (paths below the context root), for the route table. */
export function scimRoutes(s: Services): Array<{ path: string; steps: Step[] }> {
  const root = SCIM_ROOT;
  return [
    { path: `${root}/Users`, steps: scim(s, { GET: [listUsers(s)], POST: [createUser(s)] }) },
    { path: `${root}/Users/:subjectId`, steps: scim(s, { GET: [readUser(s)], PUT: [replaceUser(s)], PATCH: [patchUser(s)], DELETE: [deleteUser(s)], POST: [step('postToUser', (x) => { userId(x); throw new MethodNotAllowed('POST is not supported on a user'); })] }) },
    { path: `${root}/Groups`, steps: scim(s, { GET: [listGroups(s)], POST: [createGroup(s)] }) },
    { path: `${root}/Groups/:groupId`, steps: scim(s, { GET: [readGroup(s)], PUT: [replaceGroup(s)], PATCH: [patchGroup(s)], DELETE: [deleteGroup(s)], POST: [notOffered('POST /Groups/.search')] }) },
    { path: `${root}/ServiceProviderConfig`, steps: scim(s, { GET: [discovery(s, 'serviceProviderConfig', (x, r) => serviceProviderConfig(r, x.config.scim.maxResults))] }) },
    { path: `${root}/ResourceTypes`, steps: scim(s, { GET: [discovery(s, 'resourceTypes', (_x, r) => listResponse(resourceTypes(r), 2, 1))] }) },
    { path: `${root}/ResourceTypes/:name`, steps: scim(s, { GET: [discovery(s, 'resourceType', (x, r) => byId(resourceTypes(r), x.ids.name))] }) },
    { path: `${root}/Schemas`, steps: scim(s, { GET: [discovery(s, 'schemas', (_x, r) => listResponse(schemas(r), 2, 1))] }) },
    { path: `${root}/Schemas/:name`, steps: scim(s, { GET: [discovery(s, 'schema', (x, r) => byId(schemas(r), x.ids.name))] }) },
    { path: `${root}/Bulk`, steps: scim(s, { POST: [notOffered('/Bulk')], GET: [notOffered('/Bulk')] }) },
    { path: `${root}/.search`, steps: scim(s, { POST: [notOffered('POST /.search')] }) },
    { path: root, steps: scim(s, { GET: [notOffered('A query at the service root')], POST: [notOffered('A query at the service root')] }) },
    { path: `${root}/*rest`, steps: scim(s, { GET: [unknownResource], POST: [unknownResource] }) },
  ];
}


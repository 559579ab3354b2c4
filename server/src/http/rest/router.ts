import type { Request, Response } from 'express';
import { InvalidRequest, MethodNotAllowed } from '../../../../common/src/errors';
import { isContextId } from '../../../../common/src/principal-name';
import type { WireDocument } from '../../../../common/src/wire/xml';
import type { Operation } from '../../config/types';
import type { Core } from '../../core';
import { sessionView } from '../../sessions/session';
import { assertSubjectId } from '../../subjects/subject-id';
import { authorize } from '../authorize';
import { lockoutHandler, passwordHandler } from '../login-routes';
import { readRawBody } from '../body';
import { responseFormat, sendDocument } from '../respond';
import { answerCheck, answerOptions, checkedOperation } from './check';
import { RESOURCES, type Resource } from './resources';
import * as subjects from './subject-handlers';

type Params = Record<string, string>;

/** A route of the REST API: a resource of the table, or form 4 of the check (the `authz` paths). */
interface Route {
  /** The template, as in the table; also the route label of the request log and the histogram. */
  path: string;
  /** The template split at `/`: literal segments, and `:name` for a parameter. */
  segments: string[];
  resource?: Resource;
  /** Form 4: the operation by method. */
  authz?: Record<string, Operation | undefined>;
}

/** A request path resolved to a route; parameters still percent-encoded (RestRouter.params decodes them). */
export interface RestMatch {
  route: Route;
  /** The mount the path came through: `{root}/resources` or `{root}`. */
  baseUrl: string;
  raw: string[];
}

// HEAD is GET without a body: the same question, answered with headers only.
const AUTHZ_COLLECTION: Record<string, Operation | undefined> = { POST: 'CREATE', GET: 'SEARCH', HEAD: 'SEARCH' };
const AUTHZ_SUBJECT: Record<string, Operation | undefined> = { GET: 'READ', HEAD: 'READ', PUT: 'UPDATE', DELETE: 'DELETE' };

const ROUTES: Route[] = [
  ...RESOURCES.map((resource) => ({ path: resource.path, segments: resource.path.slice(1).split('/'), resource })),
  // Form 4 of the check: the keyword `authz` replaces `contexts`; the method names the operation.
  { path: '/authz/:contextId/subjects', segments: ['authz', ':contextId', 'subjects'], authz: AUTHZ_COLLECTION },
  { path: '/authz/:contextId/subjects/:subjectId', segments: ['authz', ':contextId', 'subjects', ':subjectId'], authz: AUTHZ_SUBJECT },
];

/** Routing as express's strict, case-sensitive router did it: whole segments, no empty parameter. */
function matchSegments(route: Route, parts: string[]): string[] | undefined {
  if (parts.length !== route.segments.length) return undefined;
  const raw: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const template = route.segments[i];
    if (template.charCodeAt(0) === 58 /* : */) {
      if (parts[i].length === 0) return undefined;
      raw.push(parts[i]);
    } else if (template !== parts[i]) return undefined;
  }
  return raw;
}

function decodeParams(match: RestMatch): Params {
  const params: Params = {};
  let i = 0;
  for (const segment of match.route.segments) {
    if (segment.charCodeAt(0) !== 58) continue;
    try {
      params[segment.slice(1)] = decodeURIComponent(match.raw[i++]);
    } catch {
      throw new InvalidRequest('the path is not valid percent-encoding');
    }
  }
  return params;
}

/**
 * Path parameters, decoded and checked for syntax before anything else reads them, authentication
 * included (SPEC section 3: "anything else in a path is 400 before any other processing"). The
 * syntax is principal-name's; whether the context exists is asked only after authentication, so an
 * unknown (well-formed) context is never told to a caller who may not know it.
 */
function checkedParams(match: RestMatch): Params {
  const params = decodeParams(match);
  if (params.contextId !== undefined && !isContextId(params.contextId)) {
    throw new InvalidRequest('a context id is 1 to 64 letters, digits and . _ -, starting with a letter or digit', {
      errors: [{ path: 'contextId', message: 'invalid context id' }],
    });
  }
  if (params.subjectId !== undefined) assertSubjectId(params.subjectId, 'subjectId');
  return params;
}

async function perform(core: Core, resource: Resource, operation: Operation, req: Request, res: Response, p: Params): Promise<void> {
  switch (resource.kind) {
    case 'contexts': {
      const client = core.client(req.svc.session.clientId);
      const ids = client ? client.contexts : core.config.contexts.map((c) => c.id);
      const body = { contexts: ids.map((id) => ({ id, default: id === (client?.defaultContext ?? ids[0]) })) };
      return sendDocument(req, res, 200, body as unknown as WireDocument);
    }
    case 'context': {
      const { config } = core.subjects.context(p.contextId);
      const attributes = Object.fromEntries(Object.entries(config.definition.attributes).map(([name, d]) => [name, { type: d.type, multivalued: d.multivalued, required: d.required, unique: d.unique, mutability: d.mutability }]));
      // What a form needs to be built from the definition (the portlets, SPEC 10.4): which attributes a
      // registrant gives, and which one is the password.
      const body = {
        context: {
          id: config.id,
          attributes,
          searchAttributes: config.searchAttributes,
          registration: config.registration.enabled,
          registrationAttributes: config.registration.enabled ? config.registration.attributes : [],
          passwordAttribute: config.definition.password ?? null,
          forgottenPassword: config.forgottenPassword.enabled,
        },
      };
      return sendDocument(req, res, 200, body as unknown as WireDocument);
    }
    case 'session':
      return sendDocument(req, res, 200, { session: sessionView(req.svc.session) } as unknown as WireDocument);
    case 'subjects':
      return operation === 'CREATE' ? subjects.createSubject(core, req, res, p.contextId) : subjects.searchSubjects(core, req, res, p.contextId);
    case 'subject':
      if (operation === 'READ') return subjects.readSubject(core, req, res, p.contextId, p.subjectId);
      if (operation === 'UPDATE') return subjects.updateSubject(core, req, res, p.contextId, p.subjectId);
      return subjects.deleteSubject(core, req, res, p.contextId, p.subjectId);
    case 'password':
      return passwordHandler(core, req, res, p.contextId, p.subjectId);
    case 'lockout':
      return lockoutHandler(core, req, res, p.contextId, p.subjectId);
  }
}

async function serveResource(core: Core, resource: Resource, req: Request, res: Response, p: Params): Promise<void> {
  responseFormat(req); // 406 before anything is performed
  const target = resource.target(p);
  const checked = checkedOperation(req, resource);
  if (checked) return answerCheck(core, req, res, checked, target, p.contextId, p.subjectId);
  if (req.method === 'OPTIONS') return answerOptions(core, req, res, resource, target);
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const operation = resource.methods[method as keyof Resource['methods']];
  if (!operation) {
    res.setHeader('Allow', [...Object.keys(resource.methods), ...(resource.methods.GET ? ['HEAD'] : [])].join(', '));
    throw new MethodNotAllowed(`${req.method} is not supported here`);
  }
  await authorize(core, req.svc, operation, target);
  return perform(core, resource, operation, req, res, p);
}

/**
 * The REST API, at `{base}/resources` and its alias `{base}`, served without express's router: it
 * carries nearly all traffic. `match` resolves a path to a route; `serve` (after the authentication
 * filter) resolves the request to a resource and an operation, checks it (if it asks to be) or
 * authorizes it, and only then performs it.
 */
export class RestRouter {
  private readonly root: string;
  private readonly resourcesRoot: string;

  constructor(private readonly core: Core) {
    this.root = core.config.server.contextRoot;
    this.resourcesRoot = `${this.root}/resources`;
  }

  /** The route of a request path (no query string), or undefined when it is not the REST API's. */
  match(pathname: string): RestMatch | undefined {
    if (!pathname.startsWith(this.root) || pathname.charCodeAt(this.root.length) !== 47 /* / */) return undefined;
    // `{base}/resources/…` first, as it was mounted first; `{base}/…` is its alias.
    if (pathname.startsWith(this.resourcesRoot) && pathname.charCodeAt(this.resourcesRoot.length) === 47) {
      const found = this.find(pathname.slice(this.resourcesRoot.length + 1).split('/'), this.resourcesRoot);
      if (found) return found;
    }
    return this.find(pathname.slice(this.root.length + 1).split('/'), this.root);
  }

  private find(parts: string[], baseUrl: string): RestMatch | undefined {
    for (const route of ROUTES) {
      const raw = matchSegments(route, parts);
      if (raw) return { route, baseUrl, raw };
    }
    return undefined;
  }

  /**
   * The match's parameters, decoded and checked (400 on a malformed id or percent-encoding): called
   * before the authentication filter, so a path that cannot name anything is refused as such.
   */
  params(match: RestMatch): Params {
    return checkedParams(match);
  }

  /** Serves a match whose parameters `params` checked, after the authentication filter. */
  async serve(match: RestMatch, params: Params, req: Request, res: Response): Promise<void> {
    const { resource, authz } = match.route;
    if (resource) await readRawBody(req, res, this.core.config.settings.bodyLimitBytes);
    // The context exists (404 otherwise), asked only now that the caller is known.
    if (params.contextId !== undefined) this.core.subjects.context(params.contextId);
    if (resource) return serveResource(this.core, resource, req, res, params);
    const operation = authz![req.method];
    if (!operation) throw new MethodNotAllowed(`${req.method} does not name an operation here`);
    const target = params.subjectId === undefined ? `contexts/${params.contextId}/subjects` : `contexts/${params.contextId}/subjects/${params.subjectId}`;
    return answerCheck(this.core, req, res, operation, target, params.contextId, params.subjectId);
  }
}

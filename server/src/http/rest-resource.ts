import { InvalidRequest, MethodNotAllowed } from '../../../common/src/errors';
import { isContextId } from '../../../common/src/principal-name';
import type { Operation } from '../config/types';
import type { Decisions } from '../policy/decisions';
import type { SubjectService } from '../subjects/subject-service';
import { assertSubjectId } from '../subjects/subject-id';
import { readBody } from './body';
import { wantsCsv } from './csv';
import { answerCheck, checkedOperation, type CheckableRoute } from './checks';
import { step, type Exchange, type PathIds, type Step } from './exchange';
import { responseFormat, sendDocument } from './respond';

export type RestMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * A resource of the REST API (SPEC section 3): its path below the mount, the operation each method
 * performs with the step that performs it, the policy target built from the path's ids (SPEC
 * section 6), and the operations a check of it may ask. Both mounts (`{base}/resources` and `{base}`)
 * serve it, so both give the same target.
 */
export interface RestResource extends CheckableRoute {
  path: string;
  methods: Partial<Record<RestMethod, Operation>>;
  perform: Partial<Record<RestMethod, Step>>;
  target(ids: PathIds): string;
  /** Its GET also answers `text/csv` (SPEC 3: SEARCH), so negotiation lets a client that asks for it through. */
  csv?: boolean;
}

/**
 * The path's ids, checked for syntax before anything else reads them, authentication included (SPEC
 * section 3: "anything else in a path is 400 before any other processing"). Whether the context exists
 * is asked only after authentication (`contextExists`), so an unknown (well-formed) context is never
 * told to a caller who may not know it.
 */
export const pathIds = step('pathIds', ({ ids }) => {
  if (ids.contextId !== undefined && !isContextId(ids.contextId)) {
    throw new InvalidRequest('a context id is 1 to 64 letters, digits and . _ -, starting with a letter or digit', {
      errors: [{ path: 'contextId', message: 'invalid context id' }],
    });
  }
  if (ids.subjectId !== undefined) assertSubjectId(ids.subjectId, 'subjectId');
});

/** The path's context exists (404 otherwise), asked once the caller is known. */
export const contextExists = (subjects: Pick<SubjectService, 'context'>): Step =>
  step('contextExists', ({ ids }) => {
    if (ids.contextId !== undefined) subjects.context(ids.contextId);
  });

/** 406 before anything is performed, for a client that accepts neither JSON nor XML (nor CSV, where a GET serves it). */
export const negotiate = (resource: Pick<RestResource, 'csv'>): Step =>
  step('negotiate', ({ req }) => {
    if (resource.csv && (req.method === 'GET' || req.method === 'HEAD') && wantsCsv(req)) return;
    responseFormat(req);
  });

const allowHeader = (resource: RestResource) => [...Object.keys(resource.methods), ...(resource.methods.GET ? ['HEAD'] : [])].join(', ');

/** The method's operation (HEAD is GET's), or 405 with `Allow`. */
function operationOf(resource: RestResource, x: Exchange): Operation {
  const method = (x.req.method === 'HEAD' ? 'GET' : x.req.method) as RestMethod;
  const operation = resource.methods[method];
  if (operation) return operation;
  x.res.setHeader('Allow', allowHeader(resource));
  throw new MethodNotAllowed(`${x.req.method} is not supported here`);
}

/**
 * The steps of every REST resource, in order: ids, authentication, the body, the context, the
 * answer's format; then a check (any form) is answered and never performed, OPTIONS says what this
 * principal may do here, and only an authorized operation is performed.
 */
export function restSteps(resource: RestResource, deps: { decisions: Decisions; subjects: Pick<SubjectService, 'context'>; authenticate: Step }): Step[] {
  const { decisions } = deps;
  return [
    pathIds,
    deps.authenticate,
    readBody((config) => config.settings.bodyLimitBytes),
    contextExists(deps.subjects),
    negotiate(resource),
    step('answerCheck', (x) => {
      const operation = checkedOperation(x.req, resource);
      return operation ? answerCheck(decisions, x, operation, resource.target(x.ids)) : undefined;
    }),
    step('answerOptions', (x) => (x.req.method === 'OPTIONS' ? answerOptions(decisions, x, resource) : undefined)),
    step('authorize', async (x) => {
      await decisions.authorize(x.state, operationOf(resource, x), resource.target(x.ids));
    }),
    step(
      'perform',
      (x) => resource.perform[(x.req.method === 'HEAD' ? 'GET' : x.req.method) as RestMethod]!.run(x),
      Object.fromEntries(Object.entries(resource.perform).map(([method, handler]) => [method, [handler]])),
    ),
  ];
}

/**
 * OPTIONS on a resource path (beyond the seed): `Allow` lists the methods this principal may use
 * there, each decided by the PDP exactly as the real request would be; OPTIONS is always allowed
 * and HEAD whenever GET is. The body lists the allowed operations.
 */
async function answerOptions(decisions: Decisions, x: Exchange, resource: RestResource): Promise<void> {
  const target = resource.target(x.ids);
  const methods: string[] = [];
  const operations: Operation[] = [];
  for (const [method, operation] of Object.entries(resource.methods) as Array<[string, Operation]>) {
    if ((await decisions.decide(x.state, operation, target, { quiet: true })).decision !== 'ALLOW') continue;
    methods.push(method, ...(method === 'GET' ? ['HEAD'] : []));
    if (!operations.includes(operation)) operations.push(operation);
  }
  methods.push('OPTIONS');
  x.res.setHeader('Allow', methods.join(', '));
  x.res.setHeader('Cache-Control', 'no-store');
  x.res.setHeader('Vary', 'Cookie');
  sendDocument(x.req, x.res, 200, { resource: target, operations, methods }, { xmlRoot: 'options' });
}

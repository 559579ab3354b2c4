import type { Request, Response } from 'express';
import { InvalidOperation } from '../../../../common/src/errors';
import type { WireDocument } from '../../../../common/src/wire/xml';
import type { CheckAnswer } from '../../../../common/src/wire/check-answer';
import { OPERATIONS, operationNamed, type Operation } from '../../../../common/src/wire/operations';
import type { Core } from '../../core';
import { decide, isPrivileged } from '../authorize';
import type { RequestState } from '../request-state';
import { sendDocument } from '../respond';
import type { Resource } from './resources';

/** Operations that address a collection or one subject (the seed's 4.1 "path shape"). */
const FITS: Partial<Record<Resource['kind'], readonly Operation[]>> = {
  subjects: ['CREATE', 'SEARCH'],
  subject: ['READ', 'UPDATE', 'DELETE'],
  // Own password change and lifting a lock are UPDATEs of their targets (SPEC section 6).
  password: ['UPDATE'],
  lockout: ['UPDATE'],
};

const CHECK_PARAMETER = 'isallowed';
// Brackets (`isAllowed[]`), spaces and control characters that a query parser keeps in a name.
const DECORATION = /[\s\p{Cc}\p{Cf}[\]]/gu;

/**
 * A parameter name as a careless or hostile client might have decorated `isAllowed`: percent-decoded
 * again (double encoding), compatibility-normalised (full-width letters), without decoration.
 */
function looseName(name: string): string {
  let decoded = name;
  for (let i = 0; i < 3 && decoded.includes('%'); i++) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      break;
    }
  }
  return decoded.normalize('NFKC').replace(DECORATION, '').toLowerCase();
}

/**
 * The names of the query that make the request a check. SPEC section 6: a name that is `isAllowed`
 * give or take decoration, but not exactly `isAllowed` in some letter case, is refused rather than
 * ignored, because ignoring it would perform the operation the client meant only to check.
 */
function checkParameters(query: Record<string, unknown>): string[] {
  const names: string[] = [];
  for (const name of Object.keys(query)) {
    if (name.toLowerCase() === CHECK_PARAMETER) names.push(name);
    else if (looseName(name) === CHECK_PARAMETER) throw new InvalidOperation('a check is asked with a query parameter named exactly isAllowed (in any letter case)');
  }
  return names;
}

/**
 * Whether a request asks for a check in any form: an `isAllowed` query parameter in any letter case
 * (forms 2 and 3) or HEAD with X-Operation (form 1). A decorated near miss of the name is 400
 * `invalid_operation` here too. Routes with no target refuse such a request (SPEC section 6).
 */
export function asksCheck(req: Request): boolean {
  return checkParameters(req.query as Record<string, unknown>).length > 0 || (req.method === 'HEAD' && req.headers['x-operation'] !== undefined);
}

/** A route that can be checked: the operation each method performs there, and the operations that fit it. */
export interface CheckableRoute {
  methods: Partial<Record<string, Operation>>;
  fits: readonly Operation[];
  /** Names the route in a refusal: "a subject", "this resource". */
  name: string;
}

/**
 * Which operation a request asks to check, or undefined when it is an ordinary request:
 * form 1 (HEAD + X-Operation), forms 2 and 3 (`isAllowed` in any letter case). Form 4 arrives
 * through the `authz` routes with its operation already known.
 */
export function checkedOperation(req: Request, resource: Resource): Operation | undefined {
  return checkedOperationOn(req, { methods: resource.methods, fits: FITS[resource.kind] ?? [], name: resource.kind === 'subject' ? 'a subject' : 'this resource' });
}

/** checkedOperation for any checkable route (a REST resource, a route of the config area). */
export function checkedOperationOn(req: Request, route: CheckableRoute): Operation | undefined {
  let asked: string | undefined;
  let form: 1 | 2 | 3;
  // express parses the query string again at every read of req.query: read it once.
  const query = req.query as Record<string, unknown>;
  const names = checkParameters(query);
  if (names.length) {
    const values = names.flatMap((name) => {
      const v = query[name];
      return Array.isArray(v) ? v : [v];
    });
    if (values.length !== 1 || typeof values[0] !== 'string') throw new InvalidOperation('isAllowed must be given once');
    asked = values[0];
    // HEAD is GET without a body, so a HEAD with isAllowed is form 3 too.
    form = req.method === 'GET' || req.method === 'HEAD' ? 3 : 2;
  } else if (req.method === 'HEAD' && req.headers['x-operation'] !== undefined) {
    asked = String(req.headers['x-operation']);
    form = 1;
  } else {
    return undefined;
  }
  const operation = operationNamed(asked);
  if (!operation) throw new InvalidOperation(`unknown operation "${asked.slice(0, 32)}"; use one of ${OPERATIONS.join(', ')}`);
  if (!route.fits.includes(operation)) throw new InvalidOperation(`${operation} does not fit ${route.name}`);
  // Form 2 uses the method that performs the operation here (lifting a lock: DELETE for UPDATE).
  const performing = Object.entries(route.methods).find(([, op]) => op === operation)?.[0];
  if (form === 2 && req.method !== performing) {
    throw new InvalidOperation(`${operation} is checked with ${performing === 'GET' ? 'GET' : `${performing} or GET`}, not ${req.method}`);
  }
  return operation;
}


/**
 * Decides a check: exactly what the real request would meet at authorization (the same policy
 * decision point, audit and metrics), never performing it.
 */
export async function decideCheck(core: Core, state: RequestState, operation: Operation, target: string, contextId?: string, subjectId?: string): Promise<CheckAnswer> {
  const result = await decide(core, state, operation, target);
  const allowed = result.decision === 'ALLOW';
  const answer: CheckAnswer = {
    decision: result.decision,
    operation,
    resource: target,
    sessionType: state.session.type === 'INTERNAL' ? 'ANON' : state.session.type,
    reason: (await isPrivileged(core, state.session, target)) ? result.policy : allowed ? 'allowed' : 'denied',
  };
  if (contextId !== undefined && subjectId !== undefined) {
    // `exists` would leak existence to whoever may not READ the subject (the subject itself, not its
    // …/password or …/lockout target), so it is asked of the PDP too.
    const subject = `contexts/${contextId}/subjects/${subjectId}`;
    const mayRead = operation === 'READ' && target === subject ? allowed : (await decide(core, state, 'READ', subject, { quiet: true })).decision === 'ALLOW';
    if (mayRead) answer.exists = await core.subjects.context(contextId).store.exists(contextId, subjectId);
  }
  return answer;
}

/**
 * Answers a check over REST. HEAD (form 1) has no body, so it costs one decision and nothing else.
 */
export async function answerCheck(core: Core, req: Request, res: Response, operation: Operation, target: string, contextId?: string, subjectId?: string): Promise<void> {
  const state = req.svc;
  const head = req.method === 'HEAD';
  // HEAD answers no body, so it skips the `exists` read.
  const answer = await decideCheck(core, state, operation, target, contextId, head ? undefined : subjectId);
  const allowed = answer.decision === 'ALLOW';
  res.setHeader('X-Svc-Decision', answer.decision);
  res.setHeader('Cache-Control', 'no-store');
  if (!allowed) {
    const code = state.sessionExpired ? 'session_expired' : 'access_denied';
    res.setHeader('WWW-Authenticate', `SvcSession realm="svc", error="${code}"`);
  }
  const status = allowed ? 200 : core.config.settings.denyStatus;
  if (head) {
    res.status(status).end();
    return;
  }
  sendDocument(req, res, status, answer as unknown as WireDocument, { xmlRoot: 'check' });
}

/**
 * OPTIONS on a resource path (beyond the seed): `Allow` lists the methods this principal may use
 * there, each decided by the PDP exactly as the real request would be; OPTIONS is always allowed
 * and HEAD whenever GET is. The body lists the allowed operations.
 */
export async function answerOptions(core: Core, req: Request, res: Response, resource: Resource, target: string): Promise<void> {
  const methods: string[] = [];
  const operations: Operation[] = [];
  for (const [method, operation] of Object.entries(resource.methods) as Array<[string, Operation]>) {
    if ((await decide(core, req.svc, operation, target, { quiet: true })).decision !== 'ALLOW') continue;
    methods.push(method, ...(method === 'GET' ? ['HEAD'] : []));
    if (!operations.includes(operation)) operations.push(operation);
  }
  methods.push('OPTIONS');
  res.setHeader('Allow', methods.join(', '));
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Vary', 'Cookie');
  sendDocument(req, res, 200, { resource: target, operations, methods } as unknown as WireDocument, { xmlRoot: 'options' });
}

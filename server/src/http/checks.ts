import type { Request } from 'express';
import { InvalidOperation } from '../../../common/src/errors';
import { OPERATIONS, operationNamed, type Operation } from '../../../common/src/wire/operations';
import type { Decisions } from '../policy/decisions';
import { step, type Exchange, type Step } from './exchange';
import { sendDocument } from './respond';

/**
 * The check over HTTP (SPEC section 6): which requests ask one, in which form, and the answer. The
 * decision itself is policy/decisions.ts's, the same for every transport.
 */

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
 * `invalid_operation` here too.
 */
export function asksCheck(req: Request): boolean {
  return checkParameters(req.query as Record<string, unknown>).length > 0 || (req.method === 'HEAD' && req.headers['x-operation'] !== undefined);
}

/**
 * The check holds on every route (SPEC section 6), and a check is never performed: a route with no
 * target (the home page, login and logout, the self-service pages, AuthZEN, the forgotten-password
 * flow, SOAP's endpoint) refuses one with 400 `invalid_operation` before it could act on the request.
 */
export function refuseUrlCheck(detail = 'nothing here can be checked: a check names a resource of the REST API or the config area'): Step {
  return step('refuseUrlCheck', ({ req }) => {
    if (asksCheck(req)) throw new InvalidOperation(detail);
  });
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
export function checkedOperation(req: Request, route: CheckableRoute): Operation | undefined {
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

/** Answers a check over REST. HEAD (form 1) has no body, so it costs one decision and nothing else. */
export async function answerCheck(decisions: Decisions, x: Exchange, operation: Operation, target: string): Promise<void> {
  const { req, res, state } = x;
  const head = req.method === 'HEAD';
  // HEAD answers no body, so it skips the `exists` read.
  const answer = await decisions.check(state, operation, target, x.ids.contextId, head ? undefined : x.ids.subjectId);
  const allowed = answer.decision === 'ALLOW';
  res.setHeader('X-Svc-Decision', answer.decision);
  res.setHeader('Cache-Control', 'no-store');
  if (!allowed) {
    // SPEC 15: a refusal for the session's level alone says how to overcome it.
    const code = answer.reason === 'step_up_required' ? 'insufficient_user_authentication' : state.sessionExpired ? 'session_expired' : 'access_denied';
    res.setHeader('WWW-Authenticate', `SvcSession realm="svc", error="${code}"`);
  }
  const status = allowed ? 200 : x.config.settings.denyStatus;
  if (head) {
    res.status(status).end();
    return;
  }
  sendDocument(req, res, status, answer, { xmlRoot: 'check' });
}

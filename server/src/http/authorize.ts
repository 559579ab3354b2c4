import { AccessDenied } from '../../../common/src/errors';
import { principalName } from '../../../common/src/principal-name';
import type { Operation } from '../config/types';
import { partiesOf } from '../audit';
import type { Core } from '../core';
import { contextOfTarget, holdsAdminRole } from '../policy/admin-roles';
import type { DecisionResult } from '../policy/policy-decision-point';
import type { Session } from '../sessions/session';
import type { RequestState } from './request-state';

/**
 * Roles per session object. The authentication filter resolves a fresh Session object for every
 * request, so this is a per-request memo: one store read however many decisions a request needs
 * (the check, `exists`, OPTIONS, a batch of evaluations), yet a demotion still counts at the next
 * request. Weak, so nothing outlives the request.
 */
const rolesMemo = new WeakMap<Session, Promise<readonly string[]>>();

export function rolesFor(core: Core, session: Session): Promise<readonly string[]> {
  let roles = rolesMemo.get(session);
  if (!roles) {
    roles = core.rolesOf(session);
    rolesMemo.set(session, roles);
    // A failed read must not be remembered: the next decision tries again.
    roles.catch(() => rolesMemo.delete(session));
  }
  return roles;
}

/**
 * SYSTEM and holders of the target context's `adminRoles` see the deciding policy's id in check
 * answers; others only allowed/denied (SPEC section 6). A target outside any context (`session`,
 * `contexts`) is judged by the principal's own context.
 */
export async function isPrivileged(core: Core, session: Session, target: string): Promise<boolean> {
  if (session.type === 'SYSTEM') return true;
  if (!session.principal) return false;
  const contextId = contextOfTarget(target) ?? session.principal.contextId;
  return holdsAdminRole(core.config, contextId, await rolesFor(core, session));
}

export interface DecideOptions {
  /**
   * A discovery question (OPTIONS, `exists`): answered by the same PDP but neither audited nor
   * counted, since nothing was refused to anyone.
   */
  quiet?: boolean;
  /** Decide for this session instead of the request's (AuthZEN from a SYSTEM session). */
  as?: Session;
}

/**
 * Asks the policy decision point about one operation on one target for this request's session,
 * with the principal's roles (Core.rolesOf: cached per subject, dropped on every write), and counts the answer. Both the real request and every
 * form of the check come through here.
 */
export async function decide(core: Core, state: RequestState, operation: Operation, target: string, options: DecideOptions = {}): Promise<DecisionResult> {
  const session = options.as ?? state.session;
  const roles = await rolesFor(core, session);
  const result = core.pdp.decide({ session, roles, operation, target });
  if (options.quiet) return result;
  core.metrics.decisions.inc({ decision: result.decision, operation });
  if (result.decision === 'DENY') {
    core.audit.record({
      ...partiesOf(state.session, state.peer),
      event: 'access_denied',
      outcome: 'failure',
      reason: result.policy,
      operation,
      target,
      ...(options.as ? { evaluatedFor: options.as.principal ? principalName(options.as.principal) : undefined } : {}),
    });
  }
  return result;
}

/** The refusal of a real request: `authz.denyStatus`, and `session_expired` after a dead session. */
export function denial(core: Core, state: RequestState): AccessDenied {
  return new AccessDenied(core.config.settings.denyStatus, state.sessionExpired);
}

export async function authorize(core: Core, state: RequestState, operation: Operation, target: string): Promise<DecisionResult> {
  const result = await decide(core, state, operation, target);
  if (result.decision === 'DENY') throw denial(core, state);
  return result;
}

import { AccessDenied } from '../../../common/src/errors';
import type { Operation } from '../config/types';
import type { Core } from '../core';
import type { DecisionResult } from '../policy/policy-decision-point';
import type { RequestState } from './request-state';

/**
 * Asks the policy decision point about one operation on one target for this request's session,
 * with the principal's roles read fresh, and counts the answer. Both the real request and every
 * form of the check come through here.
 */
export async function decide(core: Core, state: RequestState, operation: Operation, target: string): Promise<DecisionResult> {
  const roles = await core.rolesOf(state.session);
  const result = core.pdp.decide({ session: state.session, roles, operation, target });
  core.metrics.decisions.inc({ decision: result.decision, operation });
  if (result.decision === 'DENY') {
    core.audit.record({
      event: 'access_denied',
      outcome: 'failure',
      reason: result.policy,
      operation,
      target,
      session: state.session.handle,
      client: state.session.clientId,
      principal: state.session.principal ? `${state.session.principal.contextId}/${state.session.principal.uniqueId}` : undefined,
      peer: state.peer,
    });
  }
  return result;
}

/** The refusal of a real request: `authz.denyStatus`, and `session_expired` after a dead session. */
export function denial(core: Core, state: RequestState): AccessDenied {
  return new AccessDenied(core.config.global['authz.denyStatus'], state.sessionExpired);
}

export async function authorize(core: Core, state: RequestState, operation: Operation, target: string): Promise<DecisionResult> {
  const result = await decide(core, state, operation, target);
  if (result.decision === 'DENY') throw denial(core, state);
  return result;
}

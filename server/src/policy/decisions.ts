import { AccessDenied, StepUpRequired } from '../../../common/src/errors';
import { principalName } from '../../../common/src/principal-name';
import type { CheckAnswer } from '../../../common/src/wire/check-answer';
import { partiesOf, type Audit } from '../audit';
import type { Operation, SvcConfig } from '../config/types';
import type { Metrics } from '../metrics';
import type { Session } from '../sessions/session';
import { contextOfTarget, holdsAdminRole } from './admin-roles';
import type { DecisionResult, PolicyDecisionPoint } from './policy-decision-point';

/** Who asks for a decision: a request's session and peer (http/request-state.ts's RequestState is one). */
export interface Asker {
  session: Session;
  /** The peer address, for the audit line of a refusal. */
  peer: string;
  /** The request presented a dead session: its refusal says `session_expired` (SPEC section 4). */
  sessionExpired: boolean;
  /**
   * The session's roles, read once per request however many decisions it needs (the check,
   * `exists`, OPTIONS, a batch of evaluations), yet a demotion still counts at the next request.
   */
  roles?: { of: Session; roles: Promise<readonly string[]> };
  /** Whether the session's principal has a confirmed second factor, asked once per request like its roles. */
  hasFactor?: { of: Session; has: boolean };
}

export interface DecideOptions {
  /** A discovery question (OPTIONS, `exists`, a link to draw): the same PDP, neither audited nor counted. */
  quiet?: boolean;
  /** Decide for this session instead of the asker's (AuthZEN from a SYSTEM session). */
  as?: Session;
}

export interface DecisionsDeps {
  /** The running configuration's PDP and settings (replaced as a whole on reload). */
  pdp(): PolicyDecisionPoint;
  config(): SvcConfig;
  /** A principal's `roles` (cached per subject, dropped on every write: Core.rolesOf). */
  rolesOf(session: Session): Promise<readonly string[]>;
  /** Whether the session's principal has a confirmed second factor (SPEC 15), asked by the PDP only for a `minLevel` policy. */
  hasFactor(session: Session): boolean;
  /** Whether a subject exists (the check's `exists`; the context is known to exist). */
  exists(contextId: string, subjectId: string): Promise<boolean>;
  metrics: Metrics;
  audit: Audit;
}

/**
 * Every authorization decision of every transport (SPEC section 6): the real request's, every form
 * of the check's, AuthZEN's and a page's, through one PDP call with the principal's roles, counted
 * and (when refused) audited alike.
 */
export class Decisions {
  constructor(private readonly deps: DecisionsDeps) {}

  private rolesFor(asker: Asker, session: Session): Promise<readonly string[]> {
    if (session !== asker.session) return this.deps.rolesOf(session);
    if (asker.roles?.of === session) return asker.roles.roles;
    const roles = this.deps.rolesOf(session);
    const memo = { of: session, roles };
    asker.roles = memo;
    // A failed read is not remembered: the next decision tries again.
    roles.catch(() => {
      if (asker.roles === memo) asker.roles = undefined;
    });
    return roles;
  }

  private hasFactorFor(asker: Asker, session: Session): boolean {
    if (session !== asker.session) return this.deps.hasFactor(session);
    if (asker.hasFactor?.of !== session) asker.hasFactor = { of: session, has: this.deps.hasFactor(session) };
    return asker.hasFactor.has;
  }

  async decide(asker: Asker, operation: Operation, target: string, options: DecideOptions = {}): Promise<DecisionResult> {
    const session = options.as ?? asker.session;
    const roles = await this.rolesFor(asker, session);
    const result = this.deps.pdp().decide({ session, roles, operation, target, hasFactor: () => this.hasFactorFor(asker, session) });
    if (options.quiet) return result;
    this.deps.metrics.decisions.inc({ decision: result.decision, operation });
    if (result.decision === 'DENY') {
      this.deps.audit.record({
        ...partiesOf(asker.session, asker.peer),
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

  /**
   * The refusal of a real request: `authz.denyStatus`, and `session_expired` after a dead session;
   * `step_up_required` when only the session's level fell short (SPEC 15).
   */
  denial(asker: Asker, result?: DecisionResult): AccessDenied | StepUpRequired {
    const status = this.deps.config().settings.denyStatus;
    return result?.stepUp ? new StepUpRequired(status) : new AccessDenied(status, asker.sessionExpired);
  }

  /**
   * A check's `reason` (SPEC 6): `step_up_required` whenever `minLevel` alone refused (it tells
   * everyone what to do); else the deciding policy for the privileged, `allowed` or `denied` for others.
   */
  async reason(asker: Asker, result: DecisionResult, target: string): Promise<string> {
    if (result.stepUp) return 'step_up_required';
    if (await this.isPrivileged(asker, target)) return result.policy;
    return result.decision === 'ALLOW' ? 'allowed' : 'denied';
  }

  /** Decides a real request's operation; a DENY is thrown as its refusal. */
  async authorize(asker: Asker, operation: Operation, target: string): Promise<DecisionResult> {
    const result = await this.decide(asker, operation, target);
    if (result.decision === 'DENY') throw this.denial(asker, result);
    return result;
  }

  /**
   * SYSTEM and holders of the target context's `adminRoles` see the deciding policy's id in check
   * answers; others only allowed/denied (SPEC section 6). A target outside any context (`session`,
   * `contexts`) is judged by the principal's own context.
   */
  async isPrivileged(asker: Asker, target: string): Promise<boolean> {
    const session = asker.session;
    if (session.type === 'SYSTEM') return true;
    if (!session.principal) return false;
    const contextId = contextOfTarget(target) ?? session.principal.contextId;
    return holdsAdminRole(this.deps.config(), contextId, await this.rolesFor(asker, session));
  }

  /**
   * A check (SPEC section 6), for any transport: exactly what the real request would meet at
   * authorization (the same decision, audit and metrics), never performing it. `subjectId` asks for
   * `exists` too, itself decided as a READ of the subject, which would otherwise leak existence.
   */
  async check(asker: Asker, operation: Operation, target: string, contextId?: string, subjectId?: string): Promise<CheckAnswer> {
    const result = await this.decide(asker, operation, target);
    const allowed = result.decision === 'ALLOW';
    const answer: CheckAnswer = {
      decision: result.decision,
      operation,
      resource: target,
      sessionType: asker.session.type === 'INTERNAL' ? 'ANON' : asker.session.type,
      reason: await this.reason(asker, result, target),
    };
    if (contextId !== undefined && subjectId !== undefined) {
      const subject = `contexts/${contextId}/subjects/${subjectId}`;
      const mayRead = operation === 'READ' && target === subject ? allowed : (await this.decide(asker, 'READ', subject, { quiet: true })).decision === 'ALLOW';
      if (mayRead) answer.exists = await this.deps.exists(contextId, subjectId);
    }
    return answer;
  }
}

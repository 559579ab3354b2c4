import type { Decision } from '../../../common/src/wire/check-answer';
import { OPERATIONS } from '../../../common/src/wire/operations';
import { SESSION_TYPES } from '../../../common/src/wire/session-view';
import type { Operation, PolicyConfig, SessionType, SvcConfig } from '../config/types';
import type { Session } from '../sessions/session';
import { compileTarget, literalTarget, type TargetMatcher } from './target-pattern';

export interface DecisionRequest {
  session: Session;
  /** Values of the principal's `roles` attribute (Core.rolesOf: cached per subject, dropped on every write, at most 5 s old). */
  roles: readonly string[];
  operation: Operation;
  /** The canonical target, built from the resolved route: `contexts/c/subjects/s`. */
  target: string;
  /** Whether the principal has a confirmed second factor (SPEC 15: `minLevel` binds only them); asked only when it matters. */
  hasFactor?: () => boolean;
}

export interface DecisionResult {
  decision: Decision;
  /** The deciding policy's id, `default_deny` when no policy applies, `step_up_required` when `minLevel` alone refused. */
  policy: string;
  /** Refused only for the session's level (SPEC 15): a step-up would allow it. */
  stepUp?: true;
}

interface CompiledPolicy {
  config: PolicyConfig;
  sessionTypes: ReadonlySet<string>;
  operations: ReadonlySet<string>;
  clients?: ReadonlySet<string>;
  principalContexts?: ReadonlySet<string>;
  roles?: readonly string[];
  targets: TargetMatcher[];
}

const ALL_OPERATIONS: Operation[] = [...OPERATIONS];
const ALL_SESSIONS: SessionType[] = [...SESSION_TYPES];

function compile(config: PolicyConfig, targets: TargetMatcher[] = config.targets.map(compileTarget)): CompiledPolicy {
  return {
    config,
    sessionTypes: new Set(config.sessionTypes),
    operations: new Set(config.operations),
    clients: config.clients && new Set(config.clients),
    principalContexts: config.principalContexts && new Set(config.principalContexts),
    roles: config.roles,
    targets,
  };
}

/**
 * The one policy decision point (SPEC section 6). Pure: it knows nothing of HTTP, stores or
 * sessions beyond the values handed in, so the real request and the check get the same answer by
 * construction. Allowed when at least one policy allows and none denies; default deny.
 */
export class PolicyDecisionPoint {
  private readonly policies: CompiledPolicy[];

  constructor(policies: readonly PolicyConfig[], guards: readonly CompiledPolicy[] = []) {
    this.policies = [...policies.map((config) => compile(config)), ...guards];
  }

  /** The configured policies plus the seed's fixed rules, which no configuration can lift. */
  static fromConfig(config: Pick<SvcConfig, 'policies' | 'reservedIds' | 'system'>): PolicyDecisionPoint {
    return new PolicyDecisionPoint(config.policies, [...reservedIdGuard(config), configGuard(), ownPasswordGuard()]);
  }

  decide(request: DecisionRequest): DecisionResult {
    const segments = request.target.split('/');
    let allowedBy: string | undefined;
    let levelShort = false;
    let hasFactor: boolean | undefined;
    for (const policy of this.policies) {
      if (!this.applies(policy, request, segments)) continue;
      if (policy.config.effect === 'deny') return { decision: 'DENY', policy: policy.config.id };
      const minLevel = policy.config.minLevel;
      if (minLevel !== undefined && request.session.level < minLevel && (hasFactor ??= request.hasFactor?.() ?? false)) {
        levelShort = true;
        continue;
      }
      allowedBy ??= policy.config.id;
    }
    if (allowedBy) return { decision: 'ALLOW', policy: allowedBy };
    return levelShort ? { decision: 'DENY', policy: 'step_up_required', stepUp: true } : { decision: 'DENY', policy: 'default_deny' };
  }

  private applies(policy: CompiledPolicy, request: DecisionRequest, segments: string[]): boolean {
    const { session } = request;
    if (!policy.sessionTypes.has(session.type) || !policy.operations.has(request.operation)) return false;
    if (policy.clients && !policy.clients.has(session.clientId)) return false;
    if (policy.principalContexts && !(session.principal && policy.principalContexts.has(session.principal.contextId))) return false;
    if (policy.roles && !policy.roles.some((role) => request.roles.includes(role))) return false;
    return policy.targets.some((matches) => matches(segments, session));
  }
}

/**
 * Nobody may UPDATE or DELETE a reserved id (the system user's id among them), nor anything below
 * it (its password), whatever the policies say. The ids are matched literally: `reservedIds` is
 * free text in the configuration and must never be read as a pattern.
 */
function reservedIdGuard(config: Pick<SvcConfig, 'reservedIds' | 'system'>): CompiledPolicy[] {
  const reserved = [...config.reservedIds, ...(config.system ? [config.system.userId] : [])];
  if (!reserved.length) return [];
  const targets = reserved.flatMap((id) => [literalTarget(['contexts', null, 'subjects', id]), literalTarget(['contexts', null, 'subjects', id], true)]);
  const policy: PolicyConfig = {
    id: 'reserved-ids-are-protected',
    effect: 'deny',
    sessionTypes: ALL_SESSIONS,
    operations: ['UPDATE', 'DELETE'],
    targets: reserved.map((id) => `contexts/./subjects/${id}`),
  };
  return [compile(policy, targets)];
}

/**
 * `…/subjects/{s}/password` is that subject's own (SPEC 7: the old password proves the change);
 * administrators and SYSTEM set a password by updating the subject. Decided here, so the check and
 * the real request agree, and no handler decides on its own.
 */
function ownPasswordGuard(): CompiledPolicy {
  const policy: PolicyConfig = { id: 'password-is-its-subjects-own', effect: 'deny', sessionTypes: ALL_SESSIONS, operations: ALL_OPERATIONS, targets: ['contexts/./subjects/./password'] };
  const anotherOnes: TargetMatcher = (target, session) =>
    target.length === 5 &&
    target[0] === 'contexts' &&
    target[2] === 'subjects' &&
    target[4] === 'password' &&
    !(session.type === 'USER' && session.principal?.contextId === target[1] && session.principal.uniqueId === target[3]);
  return compile(policy, [anotherOnes]);
}

/** The configuration area is SYSTEM's alone (seed 4.4), even if a configured policy says otherwise. */
function configGuard(): CompiledPolicy {
  return compile({ id: 'config-is-system-only', effect: 'deny', sessionTypes: ['INTERNAL', 'ANON', 'USER'], operations: ALL_OPERATIONS, targets: ['config', 'config/*'] });
}

import { OPERATIONS } from '../../../common/src/wire/operations';
import { PROVISIONER_ROLES } from '../config/defaults';
import type { ContextConfig, PolicyConfig } from '../config/types';

const SELF = 'contexts/${session.principal.contextId}/subjects/${session.principal.uniqueId}';
const OWN_CONTEXT = 'contexts/${session.principal.contextId}';

/**
 * `admin-manages-own-context`: holders of a context's `adminRoles` do all five operations in their
 * own context (SPEC section 6). Each context names its own admin roles, so the policy is limited to
 * the principals of the contexts that share one list: one policy per distinct list, under the one id
 * the check's `reason` names. A context with no admin roles has no admins.
 */
function contextAdminPolicies(contexts: readonly Pick<ContextConfig, 'id' | 'adminRoles'>[]): PolicyConfig[] {
  const byRoles = new Map<string, { roles: string[]; contexts: string[] }>();
  for (const context of contexts) {
    if (context.adminRoles.length === 0) continue;
    const key = JSON.stringify([...context.adminRoles].sort());
    const group = byRoles.get(key) ?? { roles: [...context.adminRoles], contexts: [] };
    group.contexts.push(context.id);
    byRoles.set(key, group);
  }
  return [...byRoles.values()].map((group) => ({
    id: 'admin-manages-own-context',
    effect: 'allow',
    sessionTypes: ['USER'],
    principalContexts: group.contexts,
    roles: group.roles,
    operations: [...OPERATIONS],
    targets: [`${OWN_CONTEXT}/subjects`, `${OWN_CONTEXT}/subjects/*`],
    // SPEC 15: an admin who has confirmed a second factor administers only with it (level 3).
    minLevel: 3,
  }));
}

/**
 * The shipped policies (SPEC section 6), used when the configuration has no `policies` section.
 * Registration and the admin roles depend on the contexts, so ANON CREATE is allowed per context
 * with registration on, and each context's admins are its `adminRoles`' holders. The reserved-id
 * denial, the SYSTEM-only config area and the own-password rule are added by the policy decision
 * point to every policy set, so a configuration cannot lift them.
 */
export function defaultPolicies(contexts: readonly (Pick<ContextConfig, 'id' | 'adminRoles'> & { registration: Pick<ContextConfig['registration'], 'enabled' | 'attributes'> })[], options: { scim?: boolean } = {}): PolicyConfig[] {
  return [
    { id: 'everyone-reads-own-session', effect: 'allow', sessionTypes: ['ANON', 'USER', 'SYSTEM'], operations: ['READ'], targets: ['session'] },
    { id: 'everyone-lists-contexts', effect: 'allow', sessionTypes: ['ANON', 'USER', 'SYSTEM'], operations: ['SEARCH'], targets: ['contexts'] },
    { id: 'everyone-describes-contexts', effect: 'allow', sessionTypes: ['ANON', 'USER', 'SYSTEM'], operations: ['READ'], targets: ['contexts/.'] },
    { id: 'user-manages-self', effect: 'allow', sessionTypes: ['USER'], operations: ['READ', 'UPDATE'], targets: [SELF, `${SELF}/password`, `${SELF}/otp`, `${SELF}/mail`] },
    // What happened to one's own account (SPEC 10.4): read only.
    { id: 'user-reads-own-events', effect: 'allow', sessionTypes: ['USER'], operations: ['READ'], targets: [`${SELF}/events`] },
    ...contextAdminPolicies(contexts),
    ...(options.scim ? [PROVISIONER_POLICY] : []),
    { id: 'system-does-everything', effect: 'allow', sessionTypes: ['SYSTEM'], operations: [...OPERATIONS], targets: ['*'] },
    ...contexts
      .filter((context) => context.registration.enabled)
      .map((context): PolicyConfig => ({
        id: `anonymous-registers-in-${context.id}`,
        effect: 'allow',
        sessionTypes: ['ANON', 'INTERNAL'],
        operations: ['CREATE'],
        targets: [`contexts/${context.id}/subjects`],
      })),
  ];
}

/**
 * SPEC 14, shipped when `scim.clients` names any: the provisioning clients' service subjects (role
 * `provisioner`, the role SPEC 14 gives them) manage the subjects of their own context, and nothing
 * else (not `…/otp`, `…/lockout` or `…/events`).
 */
export const PROVISIONER_POLICY: PolicyConfig = {
  id: 'provisioner-manages-own-context',
  effect: 'allow',
  sessionTypes: ['USER'],
  roles: [...PROVISIONER_ROLES],
  operations: ['CREATE', 'READ', 'UPDATE', 'DELETE', 'SEARCH'],
  targets: [`${OWN_CONTEXT}/subjects`, `${OWN_CONTEXT}/subjects/.`],
};

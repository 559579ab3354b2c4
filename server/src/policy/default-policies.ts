import type { ContextConfig, PolicyConfig } from '../config/types';

const ALL = ['CREATE', 'READ', 'UPDATE', 'DELETE', 'SEARCH'] as const;
const SELF = 'contexts/${session.principal.contextId}/subjects/${session.principal.uniqueId}';
const OWN_CONTEXT = 'contexts/${session.principal.contextId}';

/**
 * The shipped policies (SPEC section 6), used when the configuration has no `policies` section.
 * Registration depends on the contexts, so ANON CREATE is allowed per context with registration on.
 * The reserved-id denial and the SYSTEM-only config area are added by the policy decision point to
 * every policy set, so a configuration cannot lift them.
 */
export function defaultPolicies(contexts: readonly Pick<ContextConfig, 'id' | 'registration'>[]): PolicyConfig[] {
  return [
    { id: 'everyone-reads-own-session', effect: 'allow', sessionTypes: ['ANON', 'USER', 'SYSTEM'], operations: ['READ'], targets: ['session'] },
    { id: 'everyone-lists-contexts', effect: 'allow', sessionTypes: ['ANON', 'USER', 'SYSTEM'], operations: ['SEARCH'], targets: ['contexts'] },
    { id: 'everyone-describes-contexts', effect: 'allow', sessionTypes: ['ANON', 'USER', 'SYSTEM'], operations: ['READ'], targets: ['contexts/.'] },
    { id: 'user-manages-self', effect: 'allow', sessionTypes: ['USER'], operations: ['READ', 'UPDATE'], targets: [SELF, `${SELF}/password`] },
    { id: 'admin-manages-own-context', effect: 'allow', sessionTypes: ['USER'], roles: ['admin'], operations: [...ALL], targets: [`${OWN_CONTEXT}/subjects`, `${OWN_CONTEXT}/subjects/*`] },
    { id: 'system-does-everything', effect: 'allow', sessionTypes: ['SYSTEM'], operations: [...ALL], targets: ['*'] },
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

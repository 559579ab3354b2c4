import type { SvcConfig } from '../config/types';

/**
 * Whether `roles` hold one of the context's `adminRoles` (SPEC section 6): its admins for attribute
 * mutability (section 3) and the check's `reason`. No role name is written in code; an unknown
 * context has no admins.
 */
export function holdsAdminRole(config: Pick<SvcConfig, 'contexts'>, contextId: string, roles: readonly string[]): boolean {
  const context = config.contexts.find((c) => c.id === contextId);
  return context !== undefined && context.adminRoles.some((role) => roles.includes(role));
}

/** The context a canonical target lies in (`contexts/{c}…`); undefined for `session`, `config`, `contexts`. */
export function contextOfTarget(target: string): string | undefined {
  const [first, contextId] = target.split('/', 2);
  return first === 'contexts' && contextId ? contextId : undefined;
}

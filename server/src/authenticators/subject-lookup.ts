import type { Principal } from '../sessions/session';
import type { PasswordTarget } from '../subjects/store';
import type { StoredSubject } from '../subjects/subject';
import type { SubjectService } from '../subjects/subject-service';

/** A subject that may log in: found by its login name and not disabled. */
export interface LoginSubject {
  subject: StoredSubject;
  principal: Principal;
  /** Where a store that keeps passwords checks this subject's (opaque: what its lookup found). */
  passwordTarget?: PasswordTarget;
}

/**
 * The one subject a login name designates in `contextId` (uniqueId or a `definition.authenid`
 * value, case-insensitively; the store's login keys make it unique), or undefined. A disabled
 * subject is reported apart so that callers can still spend the same work on it as on a miss.
 */
export async function findLoginSubject(
  subjects: SubjectService,
  contextId: string,
  name: string,
): Promise<{ found?: LoginSubject; disabled: boolean }> {
  const lookup = await subjects.findLogin(contextId, name);
  if (!lookup) return { disabled: false };
  const { subject, passwordTarget } = lookup;
  if (subject.attributes.disabled === 'true') return { disabled: true };
  return { found: { subject, principal: { contextId, uniqueId: subject.uniqueId }, passwordTarget }, disabled: false };
}

/** The configured context of a variant that needs one (checked by config/references.ts). */
export function contextOf(config: { id: string; context?: string }): string {
  if (config.context === undefined) throw new TypeError(`authenticator ${config.id} has no context`);
  return config.context;
}

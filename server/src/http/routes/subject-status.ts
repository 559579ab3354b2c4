/**
 * A subject's status as the REST API shows it (SPEC 3 and 6): `GET …/lockout`'s document and the
 * `status` SEARCH's `include=status` (REST and SOAP) adds to each result its caller may READ the `…/lockout` of,
 * from one batch of the lockout store per page; and how any such addition is decided (mayReadPart).
 */
import { InvalidRequest } from '../../../../common/src/errors';
import type { LockoutState } from '../../../../common/src/wire/subject-parts';
import type { LockStatus } from '../../login/lockout-store';
import type { SearchAnswer } from '../../subjects/subject-operations';
import type { Asker } from '../../policy/decisions';
import type { HttpServices } from '../services';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** `{"locked":bool,"lockedUntil":ISO-8601|null,"failures":N}`. */
export function lockStatusDocument(status: LockStatus): LockoutState {
  return { locked: status.locked, lockedUntil: iso(status.lockedUntil), failures: status.failures };
}

/** `include`: absent, or `status` (the only one there is); anything else is 400 naming it. */
export function includesStatus(include: string | undefined): boolean {
  if (include === undefined) return false;
  if (include !== 'status') throw new InvalidRequest('include must be status', { errors: [{ path: 'include', message: 'not status' }] });
  return true;
}

/**
 * Whether the caller may READ `part` of a subject (`lockout`, `events`, `otp`, `mail`) for an answer
 * to add it to another (SEARCH's `include=status`, READ's `include`): the PDP call of the part's own
 * route, quietly (neither audited nor counted, as a check's discovery question: the request asked
 * for the subject, and a part left out is no refusal), the roles read once per request.
 */
export async function mayReadPart(decisions: HttpServices['decisions'], asker: Asker, contextId: string, uniqueId: string, part: string): Promise<boolean> {
  return (await decisions.decide(asker, 'READ', `contexts/${contextId}/subjects/${uniqueId}/${part}`, { quiet: true })).decision === 'ALLOW';
}

/**
 * Adds `status` to the results whose `…/lockout` the caller may READ: each decided by mayReadPart,
 * then one `statuses` call for those allowed.
 */
export async function addStatus(s: Pick<HttpServices, 'decisions' | 'accounts'>, asker: Asker, contextId: string, answer: SearchAnswer): Promise<SearchAnswer> {
  const allowed: string[] = [];
  for (const result of answer.results) {
    if (await mayReadPart(s.decisions, asker, contextId, result.uniqueId, 'lockout')) allowed.push(result.uniqueId);
  }
  const statuses = allowed.length ? await s.accounts.lockStatuses(contextId, allowed) : new Map<string, LockStatus>();
  return {
    ...answer,
    results: answer.results.map((result) => {
      const lock = statuses.get(result.uniqueId);
      if (!lock) return result;
      return { ...result, status: { disabled: result.attributes.disabled === 'true', locked: lock.locked, lockedUntil: iso(lock.lockedUntil) } };
    }),
  };
}

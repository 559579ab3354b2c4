/**
 * A subject's status as the REST API shows it (SPEC 3 and 6): `GET …/lockout`'s document and the
 * `status` SEARCH's `include=status` (REST and SOAP) adds to each result its caller may READ the `…/lockout` of,
 * from one batch of the lockout store per page.
 */
import { InvalidRequest } from '../../../../common/src/errors';
import type { WireDocument } from '../../../../common/src/wire/xml';
import type { LockStatus } from '../../login/lockout-store';
import type { SearchAnswer } from '../../subjects/subject-operations';
import type { Asker } from '../../policy/decisions';
import type { HttpServices } from '../services';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** `{"locked":bool,"lockedUntil":ISO-8601|null,"failures":N}`. */
export function lockStatusDocument(status: LockStatus): WireDocument {
  return { locked: status.locked, lockedUntil: iso(status.lockedUntil), failures: status.failures };
}

/** `include`: absent, or `status` (the only one there is); anything else is 400 naming it. */
export function includesStatus(include: string | undefined): boolean {
  if (include === undefined) return false;
  if (include !== 'status') throw new InvalidRequest('include must be status', { errors: [{ path: 'include', message: 'not status' }] });
  return true;
}

/**
 * Adds `status` to the results whose `…/lockout` the caller may READ: each decided quietly (the
 * roles read once per request), then one `statuses` call for those allowed.
 */
export async function addStatus(s: Pick<HttpServices, 'decisions' | 'accounts'>, asker: Asker, contextId: string, answer: SearchAnswer): Promise<SearchAnswer> {
  const allowed: string[] = [];
  for (const result of answer.results) {
    const target = `contexts/${contextId}/subjects/${result.uniqueId}/lockout`;
    if ((await s.decisions.decide(asker, 'READ', target, { quiet: true })).decision === 'ALLOW') allowed.push(result.uniqueId);
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

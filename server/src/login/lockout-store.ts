/**
 * Lockout and throttling of failed logins (SPEC section 4, beyond the seed):
 * - `pairFailures` (5) failures within `window` (15 min) for one (subject, address) pair lock that
 *   pair for `duration` (15 min);
 * - `subjectFailures` (50) failures within the window for one subject from all addresses lock the subject;
 * - `addressFailures` (100) failures within the window from one address throttle that address (429)
 *   until it falls below.
 * The subject is the resolved one (`context/uniqueId`) when the name resolves, else the name given,
 * so spelling a name differently (mail vs uniqueId, case) does not reset a count.
 *
 * The counters live where the sessions live: in memory (`memory-lockout-store.ts`, one process) beside
 * the memory session store, or in Redis (`redis-lockout-store.ts`) beside the Redis session store, so
 * that instances sharing sessions share the counts too. The session store provides its own
 * (`SessionStore.lockoutStore`); core.ts picks it. A store that cannot answer throws ServiceUnavailable:
 * a login then fails closed (503), it never skips the check.
 */
import type { GlobalConfig } from '../config/types';

export interface LockoutLimits {
  /** Seconds. */
  window: number;
  /** Seconds. */
  duration: number;
  pairFailures: number;
  subjectFailures: number;
  addressFailures: number;
}

export type LockStarted = 'pair' | 'subject';

export interface LockoutStore {
  /** Seconds until `peer` may try again, or 0 when it is not throttled. */
  retryAfter(peer: string): Promise<number>;

  /** Whether the pair or the whole subject is locked; a lock answers like a wrong password. */
  isLocked(subject: string, peer: string): Promise<boolean>;

  /**
   * Counts one failure. `subject` is absent when no user name was given (a bad token): only the
   * address counts then. Resolves which locks this failure started, for the audit trail.
   */
  recordFailure(subject: string | undefined, peer: string): Promise<LockStarted[]>;

  /** A success clears the pair's count (not the subject's: other addresses may be attacking it). */
  recordSuccess(subject: string, peer: string): Promise<void>;

  /** An admin lifts every lock and count of a subject (DELETE .../lockout); address counts stay. */
  lift(subject: string): Promise<void>;
}

/** The limits as configured now (read at each use, so a reload applies). */
export function lockoutLimits(g: GlobalConfig): LockoutLimits {
  return { window: g['lockout.window'], duration: g['lockout.duration'], pairFailures: g['lockout.pairFailures'], subjectFailures: g['lockout.subjectFailures'], addressFailures: g['lockout.addressFailures'] };
}

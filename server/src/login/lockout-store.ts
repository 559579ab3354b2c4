/**
 * Lockout and throttling of failed logins (SPEC section 4, beyond the seed):
 * - `pairFailures` (5) attempts within `window` (15 min) for one (subject, address) pair lock that
 *   pair for `duration` (15 min);
 * - `subjectFailures` (50) attempts within the window for one subject from all addresses lock the subject;
 * - `addressFailures` (100) attempts within the window from one address throttle that address (429)
 *   until it falls below.
 * The subjects are the resolved ones (`context/uniqueId`: every subject the name resolves to in the
 * client's contexts) when the name resolves, else the name given, so spelling a name differently
 * (mail vs uniqueId, case) does not reset a count.
 *
 * An attempt takes its place in every counter atomically, before any password is verified
 * (`reserve`): it counts as a failure in advance, so concurrent attempts cannot all pass a limit.
 * The attempt that brings a count to its limit is still verified (it saw the limit not reached) and
 * starts the lock at once, so every attempt after it is refused; only a success gives its place back
 * (`release`), undoing the locks it started. A failure needs no second call: it is already counted,
 * and so is an attempt whose verification broke off (fail closed).
 *
 * The counters live where the sessions live: in memory (`memory-lockout-store.ts`, one process) beside
 * the memory session store, or in Redis (`redis-lockout-store.ts`) beside the Redis session store, so
 * that instances sharing sessions share the counts too. The session store provides its own
 * (`SessionStore.lockoutStore`); core.ts picks it. A store that cannot answer throws ServiceUnavailable:
 * a login then fails closed (503), it never skips the check.
 */
import type { LockoutSettings, SvcConfig } from '../config/types';

export interface LockoutLimits {
  /** Seconds. */
  window: number;
  /** Seconds. */
  duration: number;
  pairFailures: number;
  subjectFailures: number;
  addressFailures: number;
}

export type LockKind = 'pair' | 'subject';

/** A lock an attempt started, for the audit trail. */
export interface LockStarted {
  kind: LockKind;
  subject: string;
}

/** An attempt's place in the counters, from `reserve` until its outcome is known. */
export interface Reservation {
  readonly throttled: false;
  /** Unique per attempt: what the attempt holds in each counter, and the owner of the locks it started. */
  readonly id: string;
  readonly subjects: readonly string[];
  readonly peer: string;
  /**
   * A pair or subject was locked before this attempt: it must be answered like a wrong password,
   * at the same cost, without verifying anything.
   */
  readonly locked: boolean;
  /** The locks this attempt started by reaching a limit; audited when it fails, undone when it succeeds. */
  readonly started: readonly LockStarted[];
}

/** The address is throttled: nothing was counted. */
export interface Throttled {
  readonly throttled: true;
  /** Seconds until the address may try again (at least 1). */
  readonly retryAfter: number;
}

/** What each counter holds within the window (operators and tests read it). */
export interface LockoutCounts {
  address: number;
  pair: number;
  subject: number;
}

/**
 * What an administrator sees of a subject's lockout (GET .../lockout, SEARCH's include=status): a lock
 * of the subject or of any of its pairs holds now; when the last of them ends; the attempts the
 * subject's counter holds within the window (from all addresses).
 */
export interface LockStatus {
  locked: boolean;
  /** Milliseconds since the epoch; null when no lock holds. */
  lockedUntil: number | null;
  failures: number;
}

export interface LockoutStore {
  /**
   * Atomically: refuses a throttled address (counting nothing); else counts the attempt against the
   * address and, for each subject, its pair and the subject (a counter holds at most as many attempts
   * as the largest limit); says whether a lock held before it; and starts
   * the locks whose limit it reached. `subjects` is empty when no user name was given (a bad client,
   * a token): only the address counts then.
   */
  reserve(subjects: readonly string[], peer: string): Promise<Reservation | Throttled>;

  /**
   * The attempt succeeded (as `subject`, one of its subjects, when a named subject logged in): it
   * leaves every counter, the locks it started are lifted, and that subject's pair count is cleared
   * (not the subject's: other addresses may be attacking it).
   */
  release(reservation: Reservation, subject?: string): Promise<void>;

  /** An admin lifts every lock and count of a subject (DELETE .../lockout); address counts stay. */
  lift(subject: string): Promise<void>;

  /**
   * The status of each subject, in one call to the store (one script on Redis) whatever their number:
   * a page of SEARCH's include=status asks once, never once per row.
   */
  statuses(subjects: readonly string[]): Promise<Map<string, LockStatus>>;

  /** The attempts each counter holds now for one subject from one address. */
  counts(subject: string, peer: string): Promise<LockoutCounts>;
}

/** The limits as configured now (read at each use, so a reload applies). */
export function lockoutLimits(lockout: LockoutSettings): LockoutLimits {
  return { window: lockout.windowSeconds, duration: lockout.durationSeconds, pairFailures: lockout.pairFailures, subjectFailures: lockout.subjectFailures, addressFailures: lockout.addressFailures };
}

/**
 * The limits a core applies: with a context on `ldap`, the per-subject ones (pair and subject) are at
 * most `stores.ldap.maxFailures`, which start refuses at or above the directory's `pwdMaxFailure`:
 * svc locks a subject before the directory would lock the account, so svc cannot be used to lock
 * directory accounts. (It applies to every context of that configuration: the counters are shared.)
 */
export function coreLockoutLimits(config: SvcConfig): LockoutLimits {
  const limits = lockoutLimits(config.settings.lockout);
  const ldap = config.stores.ldap;
  if (!ldap || !config.contexts.some((c) => c.store === 'ldap')) return limits;
  return { ...limits, pairFailures: Math.min(limits.pairFailures, ldap.maxFailures), subjectFailures: Math.min(limits.subjectFailures, ldap.maxFailures) };
}

/** Seconds until a throttled address is free: when the oldest of its last `limit` attempts leaves the window. */
export function secondsUntilFree(oldestMs: number, windowMs: number, now: number): number {
  return Math.max(1, Math.ceil((oldestMs + windowMs - now) / 1000));
}

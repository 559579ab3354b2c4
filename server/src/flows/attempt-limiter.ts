/**
 * Per-key limits on attempts (SPEC sections 4 and 7): the forgotten-password wrong-answer counter
 * (per subject), the registration throttle and the limit on flow starts (per address).
 *
 * An attempt takes its slot before anything is verified, in one atomic step with every other take
 * (memory: one synchronous step; a shared store: one script), so that concurrent attempts cannot pass
 * the limit between a check and a record, and a success can never follow a limit that concurrent
 * failures reached. A refused attempt takes no slot, so it does not prolong the refusal, but it is
 * still counted as an attempt.
 *
 * Variants: memory-attempt-limiter.ts (one process) and redis-attempt-limiter.ts (a sorted set of at
 * most `limit` slots per key, taken by one Lua script; shared by every core sharing a Redis session
 * store, which provides it). Core.attemptLimiter picks.
 */
import { TooManyRequests } from '../../../common/src/errors';

export interface AttemptLimits {
  /** Slots per key within the window. */
  limit: number;
  /** Seconds. */
  window: number;
}

export type Slot = { granted: true; id: string } | { granted: false; retryAfter: number };

export interface AttemptLimiter {
  /** Takes one slot for `key`, or says in how many seconds one frees up. */
  take(key: string): Promise<Slot>;
  /** Gives back a granted slot (an attempt that turned out not to count, such as a right answer). */
  release(key: string, id: string): Promise<void>;
  /** Attempts counted for `key` while its window lasts, granted and refused. */
  attempts(key: string): Promise<number>;
  /** Forgets every attempt of `key` (an administrator lifted the subject's lock: its wrong codes too, SPEC 15). */
  clear(key: string): Promise<void>;
}

/** Takes a slot for `key`, or throws 429 with Retry-After; resolves the granted slot's id. */
export async function takeSlot(limiter: AttemptLimiter, key: string, message: string): Promise<string> {
  const slot = await limiter.take(key);
  if (!slot.granted) throw new TooManyRequests(message, { headers: { 'Retry-After': String(slot.retryAfter) } });
  return slot.id;
}

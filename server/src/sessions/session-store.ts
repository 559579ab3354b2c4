/**
 * Where stored sessions and one-time nonces live. Two variants: the bounded in-memory store
 * (`memory-session-store.ts`, the default, one process) and the Redis store (`redis-session-store.ts`,
 * shared by several instances). The session manager is the only caller for sessions; client validation
 * uses `rememberOnce` (the store is a `NonceStore`, common/src/nonce-store.ts).
 *
 * Keys are opaque strings chosen by the caller (the session manager uses the hex SHA-256 of the cookie
 * value, so a dump of the store holds no usable cookie). Records are copied in and out: mutating a
 * returned record never changes the stored one.
 *
 * Bounded: when full, `put` of a new key and `rememberOnce` of a new nonce throw ServiceUnavailable
 * (503, with `Retry-After`). Nothing live is ever evicted to make room.
 */
import { ServiceUnavailable } from '../../../common/src/errors';
import type { Session } from './session';

/** A stored session: the session without the `stateless` flag (a stored session is never stateless). */
import type { LockoutLimits, LockoutStore } from '../login/lockout-store';
import type { AttemptLimiter, AttemptLimits } from '../flows/attempt-limiter';
import type { ResetMarkers } from '../flows/reset-markers';
import type { UsedSteps } from '../otp/used-steps';
import type { Logger } from '../../../common/src/log';
import type { ChangeFeed } from './change-feed';

export type SessionRecord = Omit<Session, 'stateless'>;

export interface SessionStore {
  /** The record under `key`, or undefined when absent or expired. */
  get(key: string): Promise<SessionRecord | undefined>;

  /**
   * Stores `record` under `key` for `ttlSeconds` (fractions allowed), replacing any record there.
   * With `maxPerPrincipal`, a new record of a principal that holds that many live records first ends
   * the principal's oldest ones (by `created`), so one account cannot fill the store (SPEC section 4).
   * Throws ServiceUnavailable when `key` is new and the store holds `maxSessions` live records.
   */
  put(key: string, record: SessionRecord, ttlSeconds: number, maxPerPrincipal?: number): Promise<void>;

  /**
   * Replaces the record under `key` only if one is there (the touch of a live session). Resolves false
   * when the record is gone, so a session ended meanwhile is never brought back. Never refused for
   * capacity.
   */
  update(key: string, record: SessionRecord, ttlSeconds: number): Promise<boolean>;

  /** Removes the record under `key`; resolves whether one was there. */
  delete(key: string): Promise<boolean>;

  /**
   * Removes every record of the principal (contextId, uniqueId) except the one under `exceptKey`;
   * resolves how many were removed. With `revokeFor`, each removed key is also remembered as revoked
   * for `revokeFor(record)` milliseconds (until the session's absolute expiry: `isRevoked`), in this
   * store, so every instance sharing it answers `session_revoked` for it.
   */
  deleteByPrincipal(contextId: string, uniqueId: string, exceptKey?: string, revokeFor?: (record: SessionRecord) => number): Promise<number>;

  /** Whether `key` names a session that `deleteByPrincipal` revoked and whose absolute expiry is still to come. */
  isRevoked(key: string): Promise<boolean>;

  /** Removes the record whose `handle` is `handle` (the config area); resolves whether one was there. */
  deleteByHandle(handle: string): Promise<boolean>;

  /** Up to `limit` live records, in no particular order (the config area). */
  list(limit: number): Promise<SessionRecord[]>;

  /** Number of live records (records expired but not yet swept may be counted by the memory store). */
  size(): Promise<number>;

  /**
   * The replay cache of client validation (structurally a `NonceStore`): true the first time `key` is
   * seen within `ttlSeconds`, false while it is remembered. When the nonce area is full it throws
   * ServiceUnavailable; it never forgets an unexpired nonce to make room.
   */
  rememberOnce(key: string, ttlSeconds: number): Promise<boolean>;

  /**
   * Checks the store before the core serves; throws what stops the start (the Redis store: a Redis
   * that may evict keys, or that cannot be reached).
   */
  open?(): Promise<void>;

  /** Resolves when the store answers (the `/ready` check); rejects with ServiceUnavailable otherwise. */
  ping(): Promise<void>;

  /** Stops timers and releases connections the store opened itself. */
  close(): Promise<void>;

  /**
   * The lockout counters kept where this store keeps sessions, when they are shared beyond one
   * process (the Redis store); absent, core.ts keeps them in memory.
   */
  lockoutStore?(limits: () => LockoutLimits, now: () => number): LockoutStore;

  /** An attempt limiter named `name` kept beside the sessions when they are shared (Redis); absent, memory. */
  attemptLimiter?(name: string, limits: () => AttemptLimits, now: () => number): AttemptLimiter;

  /** Reset markers kept beside the sessions when they are shared (Redis); absent, memory. */
  resetMarkers?(now: () => number): ResetMarkers;

  /** The last accepted second-factor time step per subject, beside the sessions when they are shared (Redis); absent, memory. */
  usedSteps?(): UsedSteps;

  /**
   * The HMAC key of stateless cookies, shared by every instance sharing this store (made once, by the
   * first to ask), given to `use` now and again whenever it changes (the store lost it and another
   * instance's was adopted); absent, each process makes its own.
   */
  statelessKey?(use: (key: Buffer) => void): Promise<void>;

  /**
   * The key of the forgotten-password flow's decoy questions, shared like `statelessKey` (else each
   * machine's data directory has its own, and an unknown name would get other questions elsewhere).
   */
  decoyKey?(use: (key: Buffer) => void): Promise<void>;

  /** The feed of subject writes between instances sharing this store (Redis pub/sub); absent, none. */
  changeFeed?(log?: Logger): ChangeFeed;
}

/** Default bounds, shared by both variants. */
export const DEFAULT_MAX_SESSIONS = 100_000;
export const DEFAULT_MAX_NONCES = 100_000;

/** Milliseconds of a TTL given in seconds; throws TypeError for a non-positive or non-finite one. */
export function ttlMillis(ttlSeconds: number, what = 'ttlSeconds'): number {
  if (typeof ttlSeconds !== 'number' || !Number.isFinite(ttlSeconds) || ttlSeconds <= 0) {
    throw new TypeError(`${what} must be a positive number of seconds`);
  }
  // The epsilon keeps float noise (1799.999 * 1000 = 1799999.0000000002) from adding a millisecond.
  return Math.max(1, Math.ceil(ttlSeconds * 1000 - 1e-6));
}

/** Validates a positive integer bound (maxSessions, maxNonces, limit). */
export function positiveInteger(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`${what} must be a positive integer`);
  return value;
}

/** The 503 of a full area, with `Retry-After` until the earliest held entry expires (at least 1 s). */
export function storeFull(what: 'session' | 'nonce', waitMs: number): ServiceUnavailable {
  const seconds = Number.isFinite(waitMs) ? Math.max(1, Math.ceil(waitMs / 1000)) : 60;
  return new ServiceUnavailable(`The ${what} store is full; try again later`, { headers: { 'Retry-After': String(seconds) } });
}

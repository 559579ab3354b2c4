/**
 * The single-use marker of a password reset (SPEC sections 4 "Memory" and 7): when a visitor's answers
 * match, the server keeps one marker for that subject (a later match replaces it) and the visitor's
 * signed cookie carries its value; the new password is accepted only while the marker lives, and
 * consuming it is atomic, so a replayed or copied cookie cannot reset twice. Bounded per subject,
 * never per request.
 *
 * Variants: memory-reset-markers.ts (one process) and redis-reset-markers.ts (SET with an expiry, and a
 * compare-and-delete script; provided by the Redis session store). Core.resetMarkers picks.
 */
export interface ResetMarkers {
  /** A new marker for `subject`, replacing any earlier one, alive `ttlSeconds`; resolves its value. */
  issue(subject: string, ttlSeconds: number): Promise<string>;
  /** The expiry (ms) of the subject's live marker `value`, exactly once, removing it; else undefined. */
  consume(subject: string, value: string): Promise<number | undefined>;
  /**
   * Puts a consumed marker back with its expiry, for a reset refused before anything was written (a
   * directory's own password policy), unless a newer marker was issued meanwhile or it has expired.
   */
  restore(subject: string, value: string, expires: number): Promise<void>;
}

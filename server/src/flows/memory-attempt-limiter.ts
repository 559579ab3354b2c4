/**
 * Attempt limits in memory, per process (attempt-limiter.ts has the rules). `take` checks and records
 * in one synchronous step, which is what makes it atomic on one event loop.
 *
 * Memory is bounded per key and in keys: a key holds at most `limit` slot times and one count of
 * refused attempts, never one entry per request; beyond `maxKeys` keys, expired ones are dropped first,
 * then the oldest (weakening an old count beats growing without bound under a flood of new keys).
 */
import type { AttemptLimiter, AttemptLimits, Slot } from './attempt-limiter';

interface Tally {
  /** Granted slots still in the window: start time (ms) and id, oldest first. */
  slots: Array<{ at: number; id: string }>;
  /** Attempts refused while the slots were full. */
  refused: number;
}

export class MemoryAttemptLimiter implements AttemptLimiter {
  private readonly tallies = new Map<string, Tally>();
  private nextId = 0;

  constructor(
    private readonly limits: () => AttemptLimits,
    private readonly now: () => number,
    private readonly maxKeys = 100_000,
  ) {}

  async take(key: string): Promise<Slot> {
    const { limit, window } = this.limits();
    const now = this.now();
    const tally = this.live(key, now, window * 1000) ?? this.add(key, now, window * 1000);
    if (tally.slots.length >= limit) {
      tally.refused++;
      // Free again when the oldest slot that keeps the count at the limit leaves the window.
      const oldest = tally.slots[tally.slots.length - limit].at;
      return { granted: false, retryAfter: Math.max(1, Math.ceil((oldest + window * 1000 - now) / 1000)) };
    }
    const id = String(this.nextId++);
    tally.slots.push({ at: now, id });
    return { granted: true, id };
  }

  async release(key: string, id: string): Promise<void> {
    const tally = this.tallies.get(key);
    if (!tally) return;
    tally.slots = tally.slots.filter((slot) => slot.id !== id);
    if (!tally.slots.length) this.tallies.delete(key);
  }

  async attempts(key: string): Promise<number> {
    const tally = this.live(key, this.now(), this.limits().window * 1000);
    return tally ? tally.slots.length + tally.refused : 0;
  }

  /** The key's tally with expired slots dropped; undefined (and forgotten) once none is left. */
  async clear(key: string): Promise<void> {
    this.tallies.delete(key);
  }

  private live(key: string, now: number, windowMs: number): Tally | undefined {
    const tally = this.tallies.get(key);
    if (!tally) return undefined;
    if (tally.slots.length && now - tally.slots[0].at >= windowMs) tally.slots = tally.slots.filter((slot) => now - slot.at < windowMs);
    if (tally.slots.length) return tally;
    this.tallies.delete(key);
    return undefined;
  }

  private add(key: string, now: number, windowMs: number): Tally {
    if (this.tallies.size >= this.maxKeys) this.makeRoom(now, windowMs);
    const tally: Tally = { slots: [], refused: 0 };
    this.tallies.set(key, tally);
    return tally;
  }

  private makeRoom(now: number, windowMs: number): void {
    for (const [key, tally] of this.tallies) if (!tally.slots.some((slot) => now - slot.at < windowMs)) this.tallies.delete(key);
    // Evict a batch, not one: under a flood of new keys the scan above then runs once per batch.
    const excess = this.tallies.size - this.maxKeys + Math.ceil(this.maxKeys / 100);
    if (excess > 0) [...this.tallies.keys()].slice(0, excess).forEach((key) => this.tallies.delete(key));
  }
}

/**
 * The lockout counters in memory, per process (lockout-store.ts has the rules): the variant beside the
 * memory session store.
 *
 * Memory is bounded: each window keeps at most `limit` timestamps, and each table at most
 * MAX_KEYS keys; a full table first drops expired entries, then the oldest ones (weakening the
 * count of an old attacker beats growing without bound under a flood of random names).
 */
import type { LockoutLimits, LockoutStore, LockStarted } from './lockout-store';

const MAX_KEYS = 100_000;

/** Failure times (ms) within the window, newest last, and the end of a lock when one holds. */
interface Tally {
  times: number[];
  lockedUntil: number;
}

class Table {
  private readonly tallies = new Map<string, Tally>();

  get(key: string): Tally | undefined {
    return this.tallies.get(key);
  }

  /** Adds one failure at `now`; resolves the tally with times older than the window removed. */
  add(key: string, now: number, windowMs: number, keep: number): Tally {
    let tally = this.tallies.get(key);
    if (!tally) {
      if (this.tallies.size >= MAX_KEYS) this.makeRoom(now, windowMs);
      tally = { times: [], lockedUntil: 0 };
      this.tallies.set(key, tally);
    }
    tally.times = tally.times.filter((t) => now - t < windowMs);
    tally.times.push(now);
    if (tally.times.length > keep) tally.times.splice(0, tally.times.length - keep);
    return tally;
  }

  delete(key: string): void {
    this.tallies.delete(key);
  }

  deleteWhere(test: (key: string) => boolean): void {
    for (const key of [...this.tallies.keys()]) if (test(key)) this.tallies.delete(key);
  }

  private makeRoom(now: number, windowMs: number): void {
    for (const [key, tally] of this.tallies) {
      const last = tally.times[tally.times.length - 1] ?? 0;
      if (now - last >= windowMs && tally.lockedUntil <= now) this.tallies.delete(key);
    }
    // Evict a batch, not one: under a flood of new keys the scan above then runs once per batch.
    const excess = this.tallies.size - MAX_KEYS + Math.ceil(MAX_KEYS / 100);
    if (excess > 0) [...this.tallies.keys()].slice(0, excess).forEach((key) => this.tallies.delete(key));
  }
}

/** `pair` keys are `<subject key>` + NUL + address: NUL cannot occur in either part. */
const pairKey = (subject: string, peer: string) => `${subject}\u0000${peer}`;

export class MemoryLockoutStore implements LockoutStore {
  private readonly pairs = new Table();
  private readonly subjects = new Table();
  private readonly addresses = new Table();

  constructor(private readonly limits: () => LockoutLimits, private readonly now: () => number) {}

  async retryAfter(peer: string): Promise<number> {
    const { window, addressFailures } = this.limits();
    const tally = this.addresses.get(peer);
    if (!tally) return 0;
    const now = this.now();
    const recent = tally.times.filter((t) => now - t < window * 1000);
    if (recent.length < addressFailures) return 0;
    // Free again when the oldest of the last `addressFailures` failures leaves the window.
    const oldest = recent[recent.length - addressFailures];
    return Math.max(1, Math.ceil((oldest + window * 1000 - now) / 1000));
  }

  async isLocked(subject: string, peer: string): Promise<boolean> {
    const now = this.now();
    return (this.pairs.get(pairKey(subject, peer))?.lockedUntil ?? 0) > now || (this.subjects.get(subject)?.lockedUntil ?? 0) > now;
  }

  async recordFailure(subject: string | undefined, peer: string): Promise<LockStarted[]> {
    const { window, duration, pairFailures, subjectFailures, addressFailures } = this.limits();
    const now = this.now();
    const windowMs = window * 1000;
    this.addresses.add(peer, now, windowMs, addressFailures);
    if (subject === undefined) return [];
    const started: LockStarted[] = [];
    const pair = this.pairs.add(pairKey(subject, peer), now, windowMs, pairFailures);
    if (pair.lockedUntil <= now && pair.times.length >= pairFailures) {
      pair.lockedUntil = now + duration * 1000;
      pair.times = [];
      started.push('pair');
    }
    const whole = this.subjects.add(subject, now, windowMs, subjectFailures);
    if (whole.lockedUntil <= now && whole.times.length >= subjectFailures) {
      whole.lockedUntil = now + duration * 1000;
      whole.times = [];
      started.push('subject');
    }
    return started;
  }

  async recordSuccess(subject: string, peer: string): Promise<void> {
    this.pairs.delete(pairKey(subject, peer));
  }

  async lift(subject: string): Promise<void> {
    this.subjects.delete(subject);
    this.pairs.deleteWhere((key) => key.startsWith(`${subject}\u0000`));
  }
}

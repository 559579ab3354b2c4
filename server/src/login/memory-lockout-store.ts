/**
 * Lockout and throttling of failed logins (SPEC section 4, beyond the seed), in memory, per process:
 * - 5 failures in 15 min for one (subject, address) pair lock that pair for 15 min;
 * - 50 failures in 15 min for one subject from all addresses lock the subject for 15 min;
 * - 100 failures in 15 min from one address throttle that address (429) until it falls below.
 * The subject is the resolved one (`context/uniqueId`) when the name resolves, else the name given,
 * so spelling a name differently (mail vs uniqueId, case) does not reset a count.
 *
 * Memory is bounded: each window keeps at most `limit` timestamps, and each table at most
 * MAX_KEYS keys; a full table first drops expired entries, then the oldest ones (weakening the
 * count of an old attacker beats growing without bound under a flood of random names).
 */
export interface LockoutLimits {
  /** Seconds. */
  window: number;
  duration: number;
  pairFailures: number;
  subjectFailures: number;
  addressFailures: number;
}

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

export class Lockout {
  private readonly pairs = new Table();
  private readonly subjects = new Table();
  private readonly addresses = new Table();

  constructor(private readonly limits: () => LockoutLimits, private readonly now: () => number) {}

  /** Seconds until `peer` may try again, or 0 when it is not throttled. */
  retryAfter(peer: string): number {
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

  /** Whether the pair or the whole subject is locked; a lock answers like a wrong password. */
  isLocked(subject: string, peer: string): boolean {
    const now = this.now();
    return (this.pairs.get(pairKey(subject, peer))?.lockedUntil ?? 0) > now || (this.subjects.get(subject)?.lockedUntil ?? 0) > now;
  }

  /**
   * Counts one failure. `subject` is absent when no user name was given (a bad token): only the
   * address counts then. Resolves which locks this failure started, for the audit trail.
   */
  recordFailure(subject: string | undefined, peer: string): Array<'pair' | 'subject'> {
    const { window, duration, pairFailures, subjectFailures, addressFailures } = this.limits();
    const now = this.now();
    const windowMs = window * 1000;
    this.addresses.add(peer, now, windowMs, addressFailures);
    if (subject === undefined) return [];
    const started: Array<'pair' | 'subject'> = [];
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

  /** A success clears the pair's count (not the subject's: other addresses may be attacking it). */
  recordSuccess(subject: string, peer: string): void {
    this.pairs.delete(pairKey(subject, peer));
  }

  /** An admin lifts every lock and count of a subject (DELETE .../lockout). */
  lift(subject: string): void {
    this.subjects.delete(subject);
    this.pairs.deleteWhere((key) => key.startsWith(`${subject}\u0000`));
  }
}

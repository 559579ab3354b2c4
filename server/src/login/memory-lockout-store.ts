/**
 * The lockout counters in memory, per process (lockout-store.ts has the rules): the variant beside the
 * memory session store. Each method runs without an await, so a reservation is atomic here.
 *
 * Memory is bounded: a counter holds at most as many attempts as the largest limit (enough to decide,
 * and exact up to there), and each table at most MAX_KEYS keys; a full table first drops expired entries, then the oldest ones (weakening the count of an old
 * attacker beats growing without bound under a flood of random names).
 */
import { secondsUntilFree, type LockStatus, type LockoutCounts, type LockoutLimits, type LockoutStore, type LockStarted, type Reservation, type Throttled } from './lockout-store';

const MAX_KEYS = 100_000;

/** One attempt in a counter. */
interface Entry {
  at: number;
  id: string;
}

/** The attempts (ms) within the window, oldest first, and a lock with the attempt that started it. */
interface Tally {
  entries: Entry[];
  lock?: { until: number; by: string };
}

const held = (tally: Tally | undefined, now: number) => (tally?.lock?.until ?? 0) > now;

class Table {
  private readonly tallies = new Map<string, Tally>();

  get(key: string): Tally | undefined {
    return this.tallies.get(key);
  }

  /** The tally with attempts older than the window dropped. */
  live(key: string, now: number, windowMs: number): Tally | undefined {
    const tally = this.tallies.get(key);
    if (tally) tally.entries = tally.entries.filter((e) => now - e.at < windowMs);
    return tally;
  }

  /** Counts one attempt; keeps the newest `keep`. */
  add(key: string, entry: Entry, now: number, windowMs: number, keep: number): Tally {
    let tally = this.live(key, now, windowMs);
    if (!tally) {
      if (this.tallies.size >= MAX_KEYS) this.makeRoom(now, windowMs);
      tally = { entries: [] };
      this.tallies.set(key, tally);
    }
    tally.entries.push(entry);
    if (tally.entries.length > keep) tally.entries.splice(0, tally.entries.length - keep);
    return tally;
  }

  /** Takes an attempt back out, with the lock it started. */
  remove(key: string, id: string): void {
    const tally = this.tallies.get(key);
    if (!tally) return;
    tally.entries = tally.entries.filter((e) => e.id !== id);
    if (tally.lock?.by === id) tally.lock = undefined;
    if (tally.entries.length === 0 && !tally.lock) this.tallies.delete(key);
  }

  delete(key: string): void {
    this.tallies.delete(key);
  }

  deleteWhere(test: (key: string) => boolean): void {
    for (const key of [...this.tallies.keys()]) if (test(key)) this.tallies.delete(key);
  }

  private makeRoom(now: number, windowMs: number): void {
    for (const [key, tally] of this.tallies) {
      const last = tally.entries[tally.entries.length - 1]?.at ?? 0;
      if (now - last >= windowMs && !held(tally, now)) this.tallies.delete(key);
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
  /** Per subject, the pair keys that had a lock started: what `statuses` looks at, without a scan of every pair. */
  private readonly pairLocks = new Map<string, Set<string>>();
  private sequence = 0;

  constructor(private readonly limits: () => LockoutLimits, private readonly now: () => number) {}

  async reserve(subjects: readonly string[], peer: string): Promise<Reservation | Throttled> {
    const { window, duration, pairFailures, subjectFailures, addressFailures } = this.limits();
    const now = this.now();
    const windowMs = window * 1000;
    const recent = this.addresses.live(peer, now, windowMs)?.entries ?? [];
    if (recent.length >= addressFailures) return { throttled: true, retryAfter: secondsUntilFree(recent[recent.length - addressFailures].at, windowMs, now) };
    const entry = { at: now, id: String(++this.sequence) };
    const keep = Math.max(pairFailures, subjectFailures, addressFailures);
    this.addresses.add(peer, entry, now, windowMs, keep);
    const unique = [...new Set(subjects)];
    // Whether each lock held is decided before this attempt counts: the attempt reaching a limit is verified.
    const before = unique.map((s) => ({ s, pair: held(this.pairs.get(pairKey(s, peer)), now), subject: held(this.subjects.get(s), now) }));
    const started: LockStarted[] = [];
    const lock = { until: now + duration * 1000, by: entry.id };
    for (const { s, pair, subject } of before) {
      const pairs = this.pairs.add(pairKey(s, peer), entry, now, windowMs, keep);
      if (!pair && pairs.entries.length >= pairFailures) {
        pairs.lock = lock;
        this.notePairLock(s, pairKey(s, peer), now);
        started.push({ kind: 'pair', subject: s });
      }
      const whole = this.subjects.add(s, entry, now, windowMs, keep);
      if (!subject && whole.entries.length >= subjectFailures) {
        whole.lock = lock;
        started.push({ kind: 'subject', subject: s });
      }
    }
    return { throttled: false, id: entry.id, subjects: unique, peer, locked: before.some((b) => b.pair || b.subject), started };
  }

  async release(reservation: Reservation, subject?: string): Promise<void> {
    const { id, peer } = reservation;
    this.addresses.remove(peer, id);
    for (const s of reservation.subjects) {
      if (s === subject) this.pairs.delete(pairKey(s, peer));
      else this.pairs.remove(pairKey(s, peer), id);
      this.subjects.remove(s, id);
    }
  }

  /** Remembers a pair's lock for its subject, forgetting the subject's locks that ended (so the set stays as small as its live locks). */
  private notePairLock(subject: string, key: string, now: number): void {
    let keys = this.pairLocks.get(subject);
    if (!keys) this.pairLocks.set(subject, (keys = new Set()));
    for (const k of keys) if (!held(this.pairs.get(k), now)) keys.delete(k);
    keys.add(key);
  }

  async statuses(subjects: readonly string[]): Promise<Map<string, LockStatus>> {
    const now = this.now();
    const windowMs = this.limits().window * 1000;
    const answer = new Map<string, LockStatus>();
    for (const subject of subjects) {
      const whole = this.subjects.live(subject, now, windowMs);
      const locks = [whole, ...[...(this.pairLocks.get(subject) ?? [])].map((key) => this.pairs.get(key))].filter((t) => held(t, now));
      const until = Math.max(0, ...locks.map((t) => t!.lock!.until));
      answer.set(subject, { locked: until > 0, lockedUntil: until > 0 ? until : null, failures: whole?.entries.length ?? 0 });
    }
    return answer;
  }

  async lift(subject: string): Promise<void> {
    this.pairLocks.delete(subject);
    this.subjects.delete(subject);
    this.pairs.deleteWhere((key) => key.startsWith(`${subject}\u0000`));
  }

  async counts(subject: string, peer: string): Promise<LockoutCounts> {
    const now = this.now();
    const windowMs = this.limits().window * 1000;
    const count = (table: Table, key: string) => table.live(key, now, windowMs)?.entries.length ?? 0;
    return { address: count(this.addresses, peer), pair: count(this.pairs, pairKey(subject, peer)), subject: count(this.subjects, subject) };
  }
}

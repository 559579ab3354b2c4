/**
 * The in-memory NonceStore: one process, bounded, expiring. It serves the memory session store, the
 * tests and a single-instance deployment; several instances need the session store's shared one.
 *
 * Bounded means: when full of unexpired nonces it refuses new ones (ServiceUnavailable, 503) instead
 * of forgetting old ones. Forgetting an unexpired nonce would reopen the replay window for the request
 * it protects, so a flood may deny logins for a while but can never make a replay succeed. Its owner
 * sizes it for the peak rate over a nonce's retention (the gateway: `nonceCacheSize`), so that a
 * flood at that rate is never refused.
 *
 * Compact, so that such a size is affordable: a key is held as 48 bits of HMAC-SHA256 under a key of
 * this store (random per process, so nobody can choose two keys that meet) and its expiry in whole
 * seconds (rounded up), about 45 bytes an entry instead of about 120 for the key's text. Two keys
 * meeting in 48 bits (a chance of n / 2^48 for a new key among n held: 7 in a billion at 2 million)
 * makes the second read as a replay: refused, never accepted.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { ServiceUnavailable } from './errors';
import type { NonceStore } from './nonce-store';

export type { NonceStore } from './nonce-store';

export interface MemoryNonceStoreOptions {
  /** Most nonces held at once. Default 100 000 (about 110 logins a second kept for 900 s). */
  maxEntries?: number;
  /** Milliseconds since the epoch, like `Date.now` (the default); tests inject a fake clock. */
  clock?: () => number;
  /**
   * Expired entries are swept at most this often while the store is not full, so that memory drops
   * after a burst without a timer (which would keep the process alive) and without an O(n) scan on
   * every call. Default 60 000 ms.
   */
  sweepIntervalMs?: number;
}

export class MemoryNonceStore implements NonceStore {
  readonly #maxEntries: number;
  readonly #clock: () => number;
  readonly #sweepIntervalMs: number;
  /** 48 bits of the key's HMAC → expiry (unix seconds, rounded up). */
  readonly #expiries = new Map<number, number>();
  readonly #slotKey = randomBytes(32);
  /** Lower bound of every held expiry: before it, a sweep cannot free anything. */
  #earliestExpiry = Number.POSITIVE_INFINITY;
  #lastSweep: number;

  constructor(options: MemoryNonceStoreOptions = {}) {
    const maxEntries = options.maxEntries ?? 100_000;
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new TypeError('MemoryNonceStore: maxEntries must be a positive integer');
    this.#maxEntries = maxEntries;
    this.#clock = options.clock ?? Date.now;
    this.#sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    if (!(this.#sweepIntervalMs >= 0)) throw new TypeError('MemoryNonceStore: sweepIntervalMs must not be negative');
    this.#lastSweep = this.#clock();
  }

  /** Number of nonces currently held (expired ones not yet swept included). */
  get size(): number {
    return this.#expiries.size;
  }

  async rememberOnce(key: string, ttlSeconds: number): Promise<boolean> {
    if (typeof key !== 'string' || key.length === 0) throw new TypeError('rememberOnce: key must be a non-empty string');
    if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) throw new TypeError('rememberOnce: ttlSeconds must be positive');
    const now = this.#clock();
    if (now - this.#lastSweep >= this.#sweepIntervalMs) this.#sweep(now);

    const slot = createHmac('sha256', this.#slotKey).update(key, 'utf8').digest().readUIntBE(0, 6);
    const expiry = this.#expiries.get(slot);
    if (expiry !== undefined && expiry * 1000 > now) return false;
    if (expiry !== undefined) this.#expiries.delete(slot);

    if (this.#expiries.size >= this.#maxEntries && now >= this.#earliestExpiry) this.#sweep(now);
    if (this.#expiries.size >= this.#maxEntries) {
      const retryAfter = Math.max(1, Math.ceil((this.#earliestExpiry - now) / 1000));
      throw new ServiceUnavailable('Too many requests in flight; try again later', {
        headers: { 'Retry-After': String(retryAfter) },
      });
    }

    const newExpiry = Math.ceil((now + ttlSeconds * 1000) / 1000);
    this.#expiries.set(slot, newExpiry);
    this.#earliestExpiry = Math.min(this.#earliestExpiry, newExpiry * 1000);
    return true;
  }

  /** Drops every expired entry and recomputes the earliest remaining expiry. */
  #sweep(now: number): void {
    let earliest = Number.POSITIVE_INFINITY;
    for (const [slot, expiry] of this.#expiries) {
      if (expiry * 1000 <= now) this.#expiries.delete(slot);
      else if (expiry * 1000 < earliest) earliest = expiry * 1000;
    }
    this.#earliestExpiry = earliest;
    this.#lastSweep = now;
  }
}

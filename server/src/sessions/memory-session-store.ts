/**
 * The default session store: one process, bounded, expiring.
 *
 * Memory per session is kept small (the target is at most 1 KiB of RSS per idle session at 100 000
 * sessions): one Map entry key → compact `Entry` (one class, so every entry shares a hidden class), and,
 * for sessions with a principal, one entry in the principal index whose value is the key itself while
 * the principal has one session and a Set only from the second. No per-session closure or timer.
 *
 * Expiry: each record has its own deadline (`now() + ttl`). Expired records are dropped lazily when
 * touched, by a full sweep when the store is full and something may have expired, and by one unref'd
 * interval timer (it never keeps the process alive). Nonces work the same way in their own bounded map.
 */
import type { Principal } from './session';
import {
  DEFAULT_MAX_NONCES,
  DEFAULT_MAX_SESSIONS,
  positiveInteger,
  storeFull,
  ttlMillis,
  type SessionRecord,
  type SessionStore,
} from './session-store';

export interface MemorySessionStoreOptions {
  /** Most live sessions held at once. Default 100 000. */
  maxSessions?: number;
  /** Most live nonces held at once. Default 100 000. */
  maxNonces?: number;
  /** Epoch milliseconds, like `Date.now` (the default); tests inject a fake clock. */
  now?: () => number;
  /** How often the timer sweeps expired records; 0 disables the timer. Default 60 000 ms. */
  sweepIntervalMs?: number;
}

/** One stored session. Fields mirror SessionRecord plus the deadline. */
class Entry {
  constructor(
    readonly handle: string,
    readonly type: SessionRecord['type'],
    readonly clientId: string,
    readonly principal: Principal | null,
    readonly level: SessionRecord['level'],
    readonly message: string | undefined,
    readonly authenticator: string,
    readonly created: number,
    readonly lastAccess: number,
    readonly data: Record<string, unknown> | undefined,
    readonly expires: number,
  ) {}

  static from(record: SessionRecord, expires: number): Entry {
    const principal = record.principal ? { uniqueId: record.principal.uniqueId, contextId: record.principal.contextId } : null;
    const data = record.data === undefined ? undefined : structuredClone(record.data);
    return new Entry(record.handle, record.type, record.clientId, principal, record.level, record.message, record.authenticator, record.created, record.lastAccess, data, expires);
  }

  toRecord(): SessionRecord {
    const record: SessionRecord = {
      handle: this.handle,
      type: this.type,
      clientId: this.clientId,
      principal: this.principal ? { uniqueId: this.principal.uniqueId, contextId: this.principal.contextId } : null,
      level: this.level,
      authenticator: this.authenticator,
      created: this.created,
      lastAccess: this.lastAccess,
    };
    if (this.message !== undefined) record.message = this.message;
    if (this.data !== undefined) record.data = structuredClone(this.data);
    return record;
  }
}

/** The principal index key; the length prefix keeps the pair unambiguous whatever the ids hold. */
const principalKey = (p: Principal): string => `${p.contextId.length}:${p.contextId}:${p.uniqueId}`;

export class MemorySessionStore implements SessionStore {
  readonly #maxSessions: number;
  readonly #maxNonces: number;
  readonly #now: () => number;
  readonly #sessions = new Map<string, Entry>();
  /** principal → its one key, or a Set of its keys from the second session on. */
  readonly #byPrincipal = new Map<string, string | Set<string>>();
  /** nonce key → expiry (ms). */
  readonly #nonces = new Map<string, number>();
  /** Revoked session key → until when it is remembered (ms), oldest revocation first. */
  readonly #revoked = new Map<string, number>();
  /** Lower bounds of every held expiry: before them, a sweep cannot free anything. */
  #earliestSession = Number.POSITIVE_INFINITY;
  #earliestNonce = Number.POSITIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.#maxSessions = positiveInteger(options.maxSessions ?? DEFAULT_MAX_SESSIONS, 'MemorySessionStore: maxSessions');
    this.#maxNonces = positiveInteger(options.maxNonces ?? DEFAULT_MAX_NONCES, 'MemorySessionStore: maxNonces');
    this.#now = options.now ?? Date.now;
    const interval = options.sweepIntervalMs ?? 60_000;
    if (!Number.isFinite(interval) || interval < 0) throw new TypeError('MemorySessionStore: sweepIntervalMs must not be negative');
    if (interval > 0) {
      this.#timer = setInterval(() => this.sweep(), interval);
      this.#timer.unref();
    }
  }

  async get(key: string): Promise<SessionRecord | undefined> {
    return this.#live(key, this.#now())?.toRecord();
  }

  async put(key: string, record: SessionRecord, ttlSeconds: number, maxPerPrincipal?: number): Promise<void> {
    const ttl = ttlMillis(ttlSeconds);
    const now = this.#now();
    const existing = this.#live(key, now);
    if (!existing && maxPerPrincipal !== undefined && record.principal) this.#makeRoomFor(record.principal, positiveInteger(maxPerPrincipal, 'put: maxPerPrincipal'), now);
    if (!existing && this.#sessions.size >= this.#maxSessions) {
      if (now >= this.#earliestSession) this.#sweepSessions(now);
      if (this.#sessions.size >= this.#maxSessions) throw storeFull('session', this.#earliestSession - now);
    }
    this.#set(key, existing, Entry.from(record, now + ttl));
  }

  async update(key: string, record: SessionRecord, ttlSeconds: number): Promise<boolean> {
    const ttl = ttlMillis(ttlSeconds);
    const now = this.#now();
    const existing = this.#live(key, now);
    if (!existing) return false;
    this.#set(key, existing, Entry.from(record, now + ttl));
    return true;
  }

  async delete(key: string): Promise<boolean> {
    const entry = this.#sessions.get(key);
    if (!entry) return false;
    this.#remove(key, entry);
    return entry.expires > this.#now();
  }

  async deleteByPrincipal(contextId: string, uniqueId: string, exceptKey?: string, revokeFor?: (record: SessionRecord) => number): Promise<number> {
    const now = this.#now();
    let removed = 0;
    for (const key of this.#keysOf({ contextId, uniqueId })) {
      if (key === exceptKey) continue;
      const entry = this.#sessions.get(key);
      if (!entry) continue;
      this.#remove(key, entry);
      if (entry.expires <= now) continue;
      removed++;
      if (revokeFor) this.#revoke(key, now + revokeFor(entry.toRecord()), now);
    }
    return removed;
  }

  async isRevoked(key: string): Promise<boolean> {
    const until = this.#revoked.get(key);
    if (until === undefined) return false;
    if (until > this.#now()) return true;
    this.#revoked.delete(key);
    return false;
  }

  async deleteByHandle(handle: string): Promise<boolean> {
    const now = this.#now();
    for (const [key, entry] of this.#sessions) {
      if (entry.handle !== handle) continue;
      this.#remove(key, entry);
      return entry.expires > now;
    }
    return false;
  }

  async list(limit: number): Promise<SessionRecord[]> {
    if (!Number.isSafeInteger(limit) || limit < 0) throw new TypeError('list: limit must be a non-negative integer');
    const now = this.#now();
    const records: SessionRecord[] = [];
    for (const entry of this.#sessions.values()) {
      if (records.length >= limit) break;
      if (entry.expires > now) records.push(entry.toRecord());
    }
    return records;
  }

  async size(): Promise<number> {
    return this.#sessions.size;
  }

  async rememberOnce(key: string, ttlSeconds: number): Promise<boolean> {
    if (typeof key !== 'string' || key.length === 0) throw new TypeError('rememberOnce: key must be a non-empty string');
    const ttl = ttlMillis(ttlSeconds);
    const now = this.#now();
    const expiry = this.#nonces.get(key);
    if (expiry !== undefined && expiry > now) return false;
    if (expiry !== undefined) this.#nonces.delete(key);
    if (this.#nonces.size >= this.#maxNonces) {
      if (now >= this.#earliestNonce) this.#sweepNonces(now);
      if (this.#nonces.size >= this.#maxNonces) throw storeFull('nonce', this.#earliestNonce - now);
    }
    this.#nonces.set(key, now + ttl);
    if (now + ttl < this.#earliestNonce) this.#earliestNonce = now + ttl;
    return true;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Drops every expired session, nonce and revocation now (the timer calls this; so may tests). */
  sweep(): void {
    const now = this.#now();
    this.#sweepSessions(now);
    this.#sweepNonces(now);
    for (const [key, until] of this.#revoked) if (until <= now) this.#revoked.delete(key);
  }

  /** What is held, expired-but-unswept entries included (metrics and tests). */
  stats(): { sessions: number; principals: number; nonces: number } {
    return { sessions: this.#sessions.size, principals: this.#byPrincipal.size, nonces: this.#nonces.size };
  }

  #keysOf(principal: Principal): string[] {
    const indexed = this.#byPrincipal.get(principalKey(principal));
    return indexed === undefined ? [] : typeof indexed === 'string' ? [indexed] : [...indexed];
  }

  /** Ends the principal's oldest live sessions until it holds fewer than `max` (a new one is coming). */
  #makeRoomFor(principal: Principal, max: number, now: number): void {
    const live: Array<[string, Entry]> = [];
    for (const key of this.#keysOf(principal)) {
      const entry = this.#live(key, now);
      if (entry) live.push([key, entry]);
    }
    if (live.length < max) return;
    live.sort((a, b) => a[1].created - b[1].created);
    for (const [key, entry] of live.slice(0, live.length - max + 1)) this.#remove(key, entry);
  }

  /**
   * Remembers `key` as revoked until `until`. Bounded like the sessions: when as many revocations as
   * sessions are held, expired ones go first, then the oldest revocation (that session then answers as
   * merely ended, `session_expired`, which still lets nobody in).
   */
  #revoke(key: string, until: number, now: number): void {
    if (until <= now) return;
    this.#revoked.delete(key);
    if (this.#revoked.size >= this.#maxSessions) {
      for (const [held, heldUntil] of this.#revoked) if (heldUntil <= now) this.#revoked.delete(held);
      while (this.#revoked.size >= this.#maxSessions) this.#revoked.delete(this.#revoked.keys().next().value as string);
    }
    this.#revoked.set(key, until);
  }

  /** The entry under `key` if live; an expired one is dropped on the way. */
  #live(key: string, now: number): Entry | undefined {
    const entry = this.#sessions.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires > now) return entry;
    this.#remove(key, entry);
    return undefined;
  }

  #set(key: string, previous: Entry | undefined, entry: Entry): void {
    if (previous && !samePrincipal(previous.principal, entry.principal)) this.#unindex(key, previous.principal);
    this.#sessions.set(key, entry);
    if (!previous || !samePrincipal(previous.principal, entry.principal)) this.#index(key, entry.principal);
    if (entry.expires < this.#earliestSession) this.#earliestSession = entry.expires;
  }

  #remove(key: string, entry: Entry): void {
    this.#sessions.delete(key);
    this.#unindex(key, entry.principal);
  }

  #index(key: string, principal: Principal | null): void {
    if (!principal) return;
    const pk = principalKey(principal);
    const indexed = this.#byPrincipal.get(pk);
    if (indexed === undefined) this.#byPrincipal.set(pk, key);
    else if (typeof indexed === 'string') {
      if (indexed !== key) this.#byPrincipal.set(pk, new Set([indexed, key]));
    } else indexed.add(key);
  }

  #unindex(key: string, principal: Principal | null): void {
    if (!principal) return;
    const pk = principalKey(principal);
    const indexed = this.#byPrincipal.get(pk);
    if (indexed === undefined) return;
    if (typeof indexed === 'string') {
      if (indexed === key) this.#byPrincipal.delete(pk);
      return;
    }
    indexed.delete(key);
    if (indexed.size === 1) this.#byPrincipal.set(pk, indexed.values().next().value as string);
    else if (indexed.size === 0) this.#byPrincipal.delete(pk);
  }

  #sweepSessions(now: number): void {
    let earliest = Number.POSITIVE_INFINITY;
    for (const [key, entry] of this.#sessions) {
      if (entry.expires <= now) this.#remove(key, entry);
      else if (entry.expires < earliest) earliest = entry.expires;
    }
    this.#earliestSession = earliest;
  }

  #sweepNonces(now: number): void {
    let earliest = Number.POSITIVE_INFINITY;
    for (const [key, expiry] of this.#nonces) {
      if (expiry <= now) this.#nonces.delete(key);
      else if (expiry < earliest) earliest = expiry;
    }
    this.#earliestNonce = earliest;
  }
}

function samePrincipal(a: Principal | null, b: Principal | null): boolean {
  if (a === null || b === null) return a === b;
  return a.contextId === b.contextId && a.uniqueId === b.uniqueId;
}

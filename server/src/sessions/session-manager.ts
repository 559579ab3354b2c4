/**
 * Issues, resolves and ends sessions (SPEC section 4). Knows nothing of HTTP: callers pass the cookie
 * value in and set whatever `cookieValue` comes back.
 *
 * Two kinds of cookie value:
 * - stored: 256 random bits, base64url (43 characters). The store key is the hex SHA-256 of the value,
 *   so a store dump holds no usable cookie. USER and SYSTEM sessions, and any session with a principal,
 *   are stored (they must be revocable).
 * - stateless: `s1.<base64url(JSON payload)>.<base64url(HMAC-SHA256(signingKey, "s1." + payload))>`,
 *   for ANON and INTERNAL sessions without principal, with their flow data (at most MAX_DATA_LENGTH
 *   characters of JSON) in the signed payload. Nothing is kept on the server, so a flood of cookie-less
 *   requests, or of flow starts, cannot grow memory or evict anyone (SPEC section 4 "Memory"). They
 *   expire `idleSeconds` after issue (`resolve` says `needsRefresh` past half of it, and `refresh` gives
 *   a fresh value) and `absoluteSeconds` after the first issue. They cannot be revoked before then, and
 *   an older value stays valid beside a newer one: what must happen once (a password reset) is guarded
 *   on the server (flows/reset-markers.ts), not by the cookie.
 *
 * Nothing the server did not issue is ever adopted: an unknown, expired, ended, forged or malformed
 * value resolves to `{ presentedInvalid: true }`; one ended by `endForPrincipal` (its subject's
 * password changed, or it was disabled or deleted) also says `revoked` until its absolute expiry.
 *
 * A principal holds at most `maxSessionsPerPrincipal` USER sessions: a new one ends its oldest.
 *
 * Example:
 *   const sessions = new SessionManager({ store, idleSeconds: 1800, absoluteSeconds: 43200 });
 *   const { cookieValue } = await sessions.create({ type: 'USER', clientId: 'web', principal, level: 2, authenticator: 'pw' });
 *   const { session } = await sessions.resolve(cookieValue);
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SessionExpired } from '../../../common/src/errors';
import { SESSION_TYPES, type AuthenticationLevel } from '../../../common/src/wire/session-view';
import type { SessionType } from '../config/types';
import type { Principal, Session } from './session';
import type { SessionRecord, SessionStore } from './session-store';

export interface SessionManagerOptions {
  store: SessionStore;
  /** A session unused this long ends. */
  idleSeconds: number;
  /** A session ends this long after its creation, however busy. */
  absoluteSeconds: number;
  /** Epoch milliseconds; default `Date.now`. */
  now?: () => number;
  /** HMAC key of stateless cookie values (at least 32 bytes). Default: random per process. */
  signingKey?: Buffer;
  /**
   * A live stored session's lastAccess is written back at most this often (default 60 s, and never more
   * than a tenth of the idle timeout), keeping the hot path to one store read. The idle timeout is
   * therefore measured from the last write-back, so a session may idle out up to this much early.
   */
  touchIntervalSeconds?: number;
  /** USER sessions one principal may hold (read at each login, so a reload applies); default: no limit. */
  maxSessionsPerPrincipal?: () => number;
}

export interface CreateSessionInput {
  type: SessionType;
  clientId: string;
  principal: Principal | null;
  level: AuthenticationLevel;
  authenticator: string;
  message?: string;
  data?: Record<string, unknown>;
}

export interface IssuedSession {
  cookieValue: string;
  session: Session;
}

export interface ResolveResult {
  session?: Session;
  /** A value was presented and is not a live session the server issued. */
  presentedInvalid: boolean;
  /** A stateless session past half its lifetime: the caller should set `refresh(...).cookieValue`. */
  needsRefresh: boolean;
  /** The presented session was revoked (SPEC section 4): answer `session_revoked`, make no new session. */
  revoked?: boolean;
}

/** A session as the config area lists it: no flow data. */
export type SessionSummary = Omit<Session, 'data'>;

const STORED_ID = /^[A-Za-z0-9_-]{43}$/;
const B64URL = /^[A-Za-z0-9_-]+$/;
const TOKEN_PREFIX = 's1.';
/** Longer presented values are rejected before any hashing. */
const MAX_COOKIE_LENGTH = 4096;
/** How far in the future a stateless `iat` may lie (clock skew between instances sharing a key). */
const MAX_SKEW_MS = 60_000;
/** Flow data of a stateless session, as JSON: small, so that the cookie stays far below 4 KiB. */
export const MAX_DATA_LENGTH = 1024;

/** The public handle of a session: base64url of the first 16 bytes of SHA-256 of the cookie value. */
export function handleOf(cookieValue: string): string {
  return createHash('sha256').update(cookieValue, 'utf8').digest().toString('base64url', 0, 16);
}

/** The store key of a stored session: SHA-256 of the cookie value, base64url (shorter than hex: sessions are many). */
export function storeKeyOf(cookieValue: string): string {
  return createHash('sha256').update(cookieValue, 'utf8').digest('base64url');
}

/** `handleOf` and `storeKeyOf` from one digest (a new stored session needs both). */
function handleAndStoreKeyOf(cookieValue: string): { handle: string; key: string } {
  const digest = createHash('sha256').update(cookieValue, 'utf8').digest();
  return { handle: digest.toString('base64url', 0, 16), key: digest.toString('base64url') };
}

/** The signed payload of a stateless cookie value. */
interface TokenPayload {
  /** type */
  t: 'ANON' | 'INTERNAL';
  /** clientId */
  c: string;
  /** authenticator */
  a: string;
  /** issued at, epoch ms */
  iat: number;
  /** random, so that two values differ */
  n: string;
  /** created (first issue), epoch ms, when it differs from iat or the value carries data */
  cr?: number;
  /** level, when not 0 */
  l?: Exclude<AuthenticationLevel, 0>;
  /** message */
  m?: string;
  /** flow data */
  d?: Record<string, unknown>;
}

export class SessionManager {
  readonly #store: SessionStore;
  readonly #idleMs: number;
  readonly #absoluteMs: number;
  readonly #now: () => number;
  #key: Buffer;
  readonly #touchMs: number;
  readonly #maxPerPrincipal?: () => number;

  constructor(options: SessionManagerOptions) {
    if (!options || typeof options.store !== 'object' || options.store === null) throw new TypeError('SessionManager: store is required');
    this.#store = options.store;
    this.#idleMs = secondsToMs(options.idleSeconds, 'idleSeconds');
    this.#absoluteMs = secondsToMs(options.absoluteSeconds, 'absoluteSeconds');
    this.#now = options.now ?? Date.now;
    if (options.signingKey !== undefined && (!Buffer.isBuffer(options.signingKey) || options.signingKey.length < 32)) {
      throw new TypeError('SessionManager: signingKey must be a Buffer of at least 32 bytes');
    }
    this.#key = options.signingKey ? Buffer.from(options.signingKey) : randomBytes(32);
    const touch = options.touchIntervalSeconds === undefined ? 60_000 : options.touchIntervalSeconds * 1000;
    if (!Number.isFinite(touch) || touch < 0) throw new TypeError('SessionManager: touchIntervalSeconds must not be negative');
    this.#touchMs = Math.min(touch, this.#idleMs / 10);
    this.#maxPerPrincipal = options.maxSessionsPerPrincipal;
  }

  /**
   * Signs stateless cookies with `key` from now on (Core.open: the key several cores share through
   * their Redis session store, so that a visitor's ANON session and flow state hold on every core).
   */
  useSigningKey(key: Buffer): void {
    if (!Buffer.isBuffer(key) || key.length < 32) throw new TypeError('SessionManager: signingKey must be a Buffer of at least 32 bytes');
    this.#key = Buffer.from(key);
  }

  /** See `handleOf`. */
  handleOf(cookieValue: string): string {
    return handleOf(cookieValue);
  }

  /**
   * A new session and its cookie value. ANON and INTERNAL sessions without principal are stateless
   * (their data in the cookie); every other one is stored (ServiceUnavailable when the store is full).
   */
  async create(input: CreateSessionInput): Promise<IssuedSession> {
    validateInput(input);
    const now = this.#now();
    if (isStateless(input)) return this.#issueToken(input, now, now);
    return this.#storeNew(input, now);
  }

  /** What a presented cookie value stands for. `undefined` or an empty value is "nothing presented". */
  async resolve(cookieValue: string | undefined): Promise<ResolveResult> {
    if (cookieValue === undefined || cookieValue === '') return { presentedInvalid: false, needsRefresh: false };
    if (typeof cookieValue !== 'string' || cookieValue.length > MAX_COOKIE_LENGTH) return invalid();
    const now = this.#now();
    if (cookieValue.startsWith(TOKEN_PREFIX)) return this.#resolveToken(cookieValue, now);
    if (!STORED_ID.test(cookieValue)) return invalid();

    const key = storeKeyOf(cookieValue);
    const record = await this.#store.get(key);
    if (!record) return (await this.#store.isRevoked(key)) ? { presentedInvalid: true, needsRefresh: false, revoked: true } : invalid();
    if (this.#expired(record, now)) {
      await this.#store.delete(key);
      return invalid();
    }
    if (now - record.lastAccess >= this.#touchMs) {
      const touched: SessionRecord = { ...record, lastAccess: now };
      if (!(await this.#store.update(key, touched, this.#ttlSeconds(touched, now)))) return invalid();
    }
    return { session: { ...record, lastAccess: now, stateless: false }, presentedInvalid: false, needsRefresh: false };
  }

  /**
   * A fresh cookie value for a live stateless session whose `resolve` said `needsRefresh` (same
   * creation time, so the absolute limit still holds). A stored session keeps its value.
   */
  async refresh(cookieValue: string, session: Session): Promise<IssuedSession> {
    if (typeof cookieValue !== 'string' || handleOf(cookieValue) !== session.handle) throw new TypeError('refresh: the cookie value is not the session\'s');
    if (!session.stateless) return { cookieValue, session };
    return this.#issueToken(session, session.created, this.#now());
  }

  /**
   * Ends the session of `cookieValue`; resolves whether a stored session ended. A stateless value has
   * nothing on the server to end (the caller clears the cookie).
   */
  async end(cookieValue: string): Promise<boolean> {
    if (typeof cookieValue !== 'string' || !STORED_ID.test(cookieValue)) return false;
    return this.#store.delete(storeKeyOf(cookieValue));
  }

  /**
   * Revokes every session of the principal except the one of `exceptCookieValue` (disable, delete,
   * password change or reset); resolves how many ended. Each id is remembered as revoked until its
   * absolute expiry, so it answers `session_revoked` rather than being replaced as a dead one.
   */
  async endForPrincipal(contextId: string, uniqueId: string, exceptCookieValue?: string): Promise<number> {
    const exceptKey = exceptCookieValue !== undefined && STORED_ID.test(exceptCookieValue) ? storeKeyOf(exceptCookieValue) : undefined;
    const now = this.#now();
    return this.#store.deleteByPrincipal(contextId, uniqueId, exceptKey, (record) => record.created + this.#absoluteMs - now);
  }

  /**
   * Gives a session flow data. A stored session keeps its cookie value; a stateless one gets a new
   * signed value carrying the data (same type, client, creation time), which the caller must set, and
   * still nothing on the server. Throws SessionExpired when the stored session has ended meanwhile.
   */
  async attachData(cookieValue: string, session: Session, data: Record<string, unknown>): Promise<IssuedSession> {
    if (typeof data !== 'object' || data === null) throw new TypeError('attachData: data must be an object');
    if (typeof cookieValue !== 'string' || handleOf(cookieValue) !== session.handle) throw new TypeError('attachData: the cookie value is not the session\'s');
    const now = this.#now();
    if (session.stateless) return this.#issueToken({ ...session, data }, session.created, now);
    const key = storeKeyOf(cookieValue);
    const record = await this.#store.get(key);
    if (!record || this.#expired(record, now)) throw new SessionExpired('The session has ended');
    const updated: SessionRecord = { ...record, lastAccess: now, data };
    if (!(await this.#store.update(key, updated, this.#ttlSeconds(updated, now)))) throw new SessionExpired('The session has ended');
    return { cookieValue, session: { ...updated, stateless: false } };
  }

  /** Up to `limit` live stored sessions, by handle, without flow data (the config area). */
  async list(limit: number): Promise<SessionSummary[]> {
    const now = this.#now();
    const records = await this.#store.list(limit);
    return records
      .filter((record) => !this.#expired(record, now))
      .map(({ data: _data, ...rest }) => ({ ...rest, stateless: false }));
  }

  /** Ends the stored session with this handle (the config area); resolves whether one ended. */
  async endByHandle(handle: string): Promise<boolean> {
    if (typeof handle !== 'string' || !/^[A-Za-z0-9_-]{22}$/.test(handle)) return false;
    return this.#store.deleteByHandle(handle);
  }

  /**
   * A key of its own for another signed token (`purpose` names it), derived from the stateless
   * cookies' key: shared wherever that key is (every core on one Redis), never equal to it.
   */
  derivedKey(purpose: string): Buffer {
    return createHmac('sha256', this.#key).update(`svc/derived/v1|${purpose}`, 'utf8').digest();
  }

  /** Closes the store (its timers and connections). */
  async close(): Promise<void> {
    await this.#store.close();
  }

  async #storeNew(input: CreateSessionInput, created: number, now = created): Promise<IssuedSession> {
    const cookieValue = randomBytes(32).toString('base64url');
    const { handle, key } = handleAndStoreKeyOf(cookieValue);
    const record: SessionRecord = {
      handle,
      type: input.type,
      clientId: input.clientId,
      principal: input.principal ? { uniqueId: input.principal.uniqueId, contextId: input.principal.contextId } : null,
      level: input.level,
      authenticator: input.authenticator,
      created,
      lastAccess: now,
    };
    if (input.message !== undefined) record.message = input.message;
    if (input.data !== undefined) record.data = input.data;
    const cap = input.type === 'USER' && record.principal ? this.#maxPerPrincipal?.() : undefined;
    await this.#store.put(key, record, this.#ttlSeconds(record, now), cap);
    return { cookieValue, session: { ...record, stateless: false } };
  }

  #issueToken(input: Pick<CreateSessionInput, 'type' | 'clientId' | 'authenticator' | 'level' | 'message' | 'data'>, created: number, now: number): IssuedSession {
    const payload: TokenPayload = {
      t: input.type as TokenPayload['t'],
      c: input.clientId,
      a: input.authenticator,
      iat: now,
      n: randomBytes(12).toString('base64url'),
    };
    // A value with flow data always names its creation, so that its length never depends on how many
    // milliseconds a flow step took (which could tell a real subject's lookup from a missing one's).
    if (created !== now || input.data !== undefined) payload.cr = created;
    if (input.level !== 0) payload.l = input.level;
    if (input.message !== undefined) payload.m = input.message;
    if (input.data !== undefined && Object.keys(input.data).length) {
      if (JSON.stringify(input.data).length > MAX_DATA_LENGTH) throw new TypeError(`the data of a stateless session must stay within ${MAX_DATA_LENGTH} characters of JSON`);
      payload.d = input.data;
    }
    const body = TOKEN_PREFIX + Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    const cookieValue = `${body}.${this.#mac(body).toString('base64url')}`;
    return { cookieValue, session: this.#tokenSession(cookieValue, payload, now) };
  }

  #resolveToken(cookieValue: string, now: number): ResolveResult {
    const parts = cookieValue.split('.');
    if (parts.length !== 3 || !B64URL.test(parts[1]) || !B64URL.test(parts[2])) return invalid();
    const given = Buffer.from(parts[2], 'base64url');
    // Reject non-canonical encodings, so that no two presented values verify as the same MAC.
    if (given.length !== 32 || given.toString('base64url') !== parts[2]) return invalid();
    if (!timingSafeEqual(this.#mac(`${TOKEN_PREFIX}${parts[1]}`), given)) return invalid();

    const payload = parsePayload(parts[1]);
    if (!payload) return invalid();
    const created = payload.cr ?? payload.iat;
    if (payload.iat > now + MAX_SKEW_MS || created > payload.iat) return invalid();
    const age = now - payload.iat;
    if (age >= this.#idleMs || now - created >= this.#absoluteMs) return invalid();
    return { session: this.#tokenSession(cookieValue, payload, now), presentedInvalid: false, needsRefresh: age > this.#idleMs / 2 };
  }

  #tokenSession(cookieValue: string, payload: TokenPayload, now: number): Session {
    const session: Session = {
      handle: handleOf(cookieValue),
      type: payload.t,
      clientId: payload.c,
      principal: null,
      level: payload.l ?? 0,
      authenticator: payload.a,
      created: payload.cr ?? payload.iat,
      lastAccess: now,
      stateless: true,
    };
    if (payload.m !== undefined) session.message = payload.m;
    if (payload.d !== undefined) session.data = payload.d;
    return session;
  }

  #mac(body: string): Buffer {
    return createHmac('sha256', this.#key).update(body, 'utf8').digest();
  }

  #expired(record: SessionRecord, now: number): boolean {
    return now - record.lastAccess >= this.#idleMs || now - record.created >= this.#absoluteMs;
  }

  /** Store TTL: until the earlier of the idle and absolute deadlines. */
  #ttlSeconds(record: SessionRecord, now: number): number {
    const deadline = Math.min(record.lastAccess + this.#idleMs, record.created + this.#absoluteMs);
    return Math.max(1, deadline - now) / 1000;
  }
}

function invalid(): ResolveResult {
  return { presentedInvalid: true, needsRefresh: false };
}

function isStateless(input: CreateSessionInput): boolean {
  return (input.type === 'ANON' || input.type === 'INTERNAL') && input.principal === null;
}

function secondsToMs(value: number, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new TypeError(`SessionManager: ${what} must be a positive number`);
  return value * 1000;
}

function validateInput(input: CreateSessionInput): void {
  if (!input || !SESSION_TYPES.includes(input.type)) throw new TypeError('create: type must be INTERNAL, ANON, USER or SYSTEM');
  if (typeof input.clientId !== 'string') throw new TypeError('create: clientId must be a string');
  if (typeof input.authenticator !== 'string') throw new TypeError('create: authenticator must be a string');
  if (input.level !== 0 && input.level !== 1 && input.level !== 2 && input.level !== 3) throw new TypeError('create: level must be 0, 1, 2 or 3');
  if (input.principal !== null && (typeof input.principal !== 'object' || typeof input.principal.uniqueId !== 'string' || typeof input.principal.contextId !== 'string')) {
    throw new TypeError('create: principal must be null or {uniqueId, contextId}');
  }
  if (input.message !== undefined && typeof input.message !== 'string') throw new TypeError('create: message must be a string');
  if (input.data !== undefined && (typeof input.data !== 'object' || input.data === null)) throw new TypeError('create: data must be an object');
}

/** The payload of a verified token, or undefined when it is not one we would have written. */
function parsePayload(encoded: string): TokenPayload | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const p = value as Record<string, unknown>;
  if (p.t !== 'ANON' && p.t !== 'INTERNAL') return undefined;
  if (typeof p.c !== 'string' || typeof p.a !== 'string' || typeof p.n !== 'string') return undefined;
  if (typeof p.iat !== 'number' || !Number.isFinite(p.iat)) return undefined;
  if (p.cr !== undefined && (typeof p.cr !== 'number' || !Number.isFinite(p.cr))) return undefined;
  if (p.l !== undefined && p.l !== 1 && p.l !== 2) return undefined;
  if (p.m !== undefined && typeof p.m !== 'string') return undefined;
  if (p.d !== undefined && (typeof p.d !== 'object' || p.d === null || Array.isArray(p.d))) return undefined;
  return p as unknown as TokenPayload;
}

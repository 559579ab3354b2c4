/**
 * Portal sessions (SPEC 10.2). A logged-in user's `SVCPORTALSESSION` (256 random bits; the store
 * keys it by its SHA-256, never the value) holds the svc principal and roles and the portlet
 * application's session; idle and absolute timeouts; bounded, and a full store refuses a login
 * (503) rather than evict anyone else's; one principal holds at most `maxSessionsPerPrincipal`
 * (a login beyond it ends that principal's oldest), so one account cannot fill the store. A session
 * svc revoked (its subject's password changed, or it was disabled or deleted) is ended by handle. A visitor has no server state at all: its state
 * travels in its own sealed cookie (visitor-cookie.ts), so no flood of visitors grows this store or
 * pushes anyone out.
 * An index principal → live sessions (entries leave with their sessions) lets a write to a subject
 * drop the cached USER_INFO of every session of that subject (SPEC 10.1).
 */
import { createHash, randomBytes } from 'node:crypto';
import { ServiceUnavailable } from '../../../common/src/errors';
import { principalName, type PrincipalName } from '../../../common/src/principal-name';
import { MemoryApplicationSession } from '../container/application-session';

export const PORTAL_SESSION_COOKIE = 'SVCPORTALSESSION';

export interface PortalSession {
  /** Public: names the session in logs and is the assertion's `visitor` (not a credential). */
  readonly handle: string;
  readonly principal: PrincipalName;
  /** `contextId/uniqueId`. */
  readonly name: string;
  /** svc roles at login, which are the portal roles. */
  readonly roles: readonly string[];
  readonly created: number;
  lastSeen: number;
  readonly application: MemoryApplicationSession;
  /** `PortletRequest.USER_INFO` source, read through the gateway; dropped after any write to the user's subject. */
  userAttributes?: Readonly<Record<string, unknown>>;
  /** Counts the drops of `userAttributes`: a read that began before a drop does not fill the cache with what it read. */
  userAttributesDrops: number;
  /** A step-up between its password and its code (SPEC 15): the gateway's sealed pending, where to go after, until when. */
  stepUp?: { pending: string; goto?: string; until: number };
}

/** A session's cookie value and handle before it exists (`prepare`). */
export interface PreparedSession {
  cookie: string;
  handle: string;
}

export interface SessionStoreOptions {
  idleSeconds: number;
  absoluteSeconds: number;
  maxSessions: number;
  /** Default: no limit per principal. */
  maxSessionsPerPrincipal?: number;
  now?: () => number;
}

export class PortalSessionStore {
  readonly #sessions = new Map<string, PortalSession>();
  /** `contextId/uniqueId` → its live sessions; an entry goes with its last session. */
  readonly #byPrincipal = new Map<string, Set<PortalSession>>();
  /** Each live session's key in `#sessions` (the SHA-256 of its cookie), to end it by handle. */
  readonly #keys = new WeakMap<PortalSession, string>();
  readonly #now: () => number;

  constructor(private readonly options: SessionStoreOptions) {
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** How many principals the index holds (each with at least one live session). */
  get indexedPrincipals(): number {
    return this.#byPrincipal.size;
  }

  /**
   * The cookie value and handle of a session a login is about to make: the gateway's login is asserted
   * for that handle (SPEC 9), so that the core session it makes belongs to this portal session alone.
   */
  prepare(): PreparedSession {
    const cookie = randomBytes(32).toString('base64url');
    return { cookie, handle: digestOf(cookie).subarray(0, 16).toString('base64url') };
  }

  /**
   * A new session for a login: a new cookie value (never one the browser offered; `prepared`'s when
   * given). `ended`: the principal's oldest sessions it replaced, past `maxSessionsPerPrincipal`.
   */
  create(principal: PrincipalName, roles: readonly string[], prepared: PreparedSession = this.prepare()): { cookie: string; session: PortalSession; ended: PortalSession[] } {
    this.sweep();
    const name = principalName(principal);
    const ended = this.#makeRoomFor(name);
    if (this.#sessions.size >= this.options.maxSessions) throw new ServiceUnavailable('the portal has as many sessions as it may hold; try again later', { headers: { 'Retry-After': '60' } });
    const { cookie } = prepared;
    const digest = digestOf(cookie);
    const now = this.#now();
    const session: PortalSession = {
      handle: digest.subarray(0, 16).toString('base64url'),
      principal,
      name: principalName(principal),
      roles: Object.freeze([...roles]),
      created: now,
      lastSeen: now,
      application: new MemoryApplicationSession(this.options.idleSeconds, this.#now),
      userAttributesDrops: 0,
    };
    this.#sessions.set(digest.toString('base64url'), session);
    this.#keys.set(session, digest.toString('base64url'));
    const sessions = this.#byPrincipal.get(session.name) ?? new Set<PortalSession>();
    this.#byPrincipal.set(session.name, sessions.add(session));
    return { cookie, session, ended };
  }

  /**
   * Ends the session of `principal` whose handle is `handle` (svc revoked its core session: SPEC
   * 10.2); resolves it, or undefined when there was none.
   */
  endByHandle(principal: PrincipalName, handle: string): PortalSession | undefined {
    for (const session of this.#byPrincipal.get(principalName(principal)) ?? []) {
      if (session.handle !== handle) continue;
      this.#delete(this.#keys.get(session)!, session);
      return session;
    }
    return undefined;
  }

  /** Ends the oldest sessions of `name` until a new one fits under `maxSessionsPerPrincipal`. */
  #makeRoomFor(name: string): PortalSession[] {
    const max = this.options.maxSessionsPerPrincipal;
    const held = this.#byPrincipal.get(name);
    if (max === undefined || held === undefined || held.size < max) return [];
    // A Set iterates in insertion order: the oldest session first.
    const ended = [...held].slice(0, held.size - max + 1);
    for (const session of ended) this.#delete(this.#keys.get(session)!, session);
    return ended;
  }

  /** The live session of a cookie value (seen now), or undefined; an expired one is ended. */
  resolve(cookie: string | undefined): PortalSession | undefined {
    if (typeof cookie !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(cookie)) return undefined;
    const key = digestOf(cookie).toString('base64url');
    const session = this.#sessions.get(key);
    if (session === undefined) return undefined;
    const now = this.#now();
    if (this.#expired(session, now)) {
      this.#delete(key, session);
      return undefined;
    }
    session.lastSeen = now;
    session.application.touch();
    return session;
  }

  /**
   * A new cookie value for the live session of `cookie` (the old one stops working), the session
   * itself unchanged, its handle too: after a step-up (SPEC 15), whose core session the gateway holds
   * under that handle, the session's privilege changed and so does its id (OWASP's session rule).
   */
  rotate(cookie: string): string | undefined {
    const key = digestOf(cookie).toString('base64url');
    const session = this.#sessions.get(key);
    if (session === undefined) return undefined;
    const fresh = randomBytes(32).toString('base64url');
    const freshKey = digestOf(fresh).toString('base64url');
    this.#sessions.delete(key);
    this.#sessions.set(freshKey, session);
    this.#keys.set(session, freshKey);
    return fresh;
  }

  end(cookie: string | undefined): PortalSession | undefined {
    if (typeof cookie !== 'string') return undefined;
    const key = digestOf(cookie).toString('base64url');
    const session = this.#sessions.get(key);
    if (session !== undefined) this.#delete(key, session);
    return session;
  }

  /**
   * Drops the cached USER_INFO of every live session of the principal: that subject was written
   * (through any session), so each of its sessions reads it again at its next render.
   */
  dropUserAttributes(principal: PrincipalName): void {
    for (const session of this.#byPrincipal.get(principalName(principal)) ?? []) {
      session.userAttributes = undefined;
      session.userAttributesDrops++;
    }
  }

  /** Ends every expired session. */
  sweep(): void {
    const now = this.#now();
    for (const [key, session] of this.#sessions) if (this.#expired(session, now)) this.#delete(key, session);
  }

  #delete(key: string, session: PortalSession): void {
    this.#sessions.delete(key);
    const sessions = this.#byPrincipal.get(session.name);
    if (sessions?.delete(session) && sessions.size === 0) this.#byPrincipal.delete(session.name);
  }

  #expired(session: PortalSession, now: number): boolean {
    return now - session.lastSeen > this.options.idleSeconds * 1000 || now - session.created > this.options.absoluteSeconds * 1000;
  }
}

function digestOf(cookie: string): Buffer {
  return createHash('sha256').update(cookie, 'utf8').digest();
}

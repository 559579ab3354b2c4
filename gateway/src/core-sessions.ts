/**
 * The core sessions the gateway holds for portal principals (SPEC section 9), in two bounded,
 * expiring LRUs: portal users (one session per core, made by the client principal login or by
 * `POST {gw}/api/login`) and visitors (the stateless ANON session the core issued to the visitor's
 * first request, sent without a cookie: no login, no nonce). Apart, so that a flood of visitors can
 * never push a portal user's session out. Concurrent first requests of one user share one login. A
 * session lives on the core that made it, so each is held per core: a user whose core failed simply
 * gets a new session on the next one.
 */
import type { VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import { formatPrincipalName } from '../../common/src/principal-name';
import type { CoreLogin } from './core-login';
import { audit, type GatewayMetrics, type Logger } from './observability';
import { principalKey } from './trust';

export interface CoreSession {
  core: string;
  /** The Cookie header value sent to the core; empty for a visitor whose first request is still to come. */
  cookie: string;
  /** A visitor's session: the core issues and re-issues it. A user's session never changes its value. */
  anonymous: boolean;
}

interface Held {
  session: CoreSession;
  expires: number;
}

export interface CoreSessionsOptions {
  login: CoreLogin;
  /** Most portal users held, and, apart, most visitors held. */
  maxEntries: number;
  ttlMs: number;
  log: Logger;
  metrics: GatewayMetrics;
  clock?: () => number;
}

/** Principal → (core → session), least recently used first. */
class Lru {
  readonly #entries = new Map<string, Map<string, Held>>();
  constructor(private readonly max: number) {}

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): Map<string, Held> | undefined {
    const entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  /** The principal's sessions, created (and the least recently used principal evicted) when absent. */
  open(key: string): Map<string, Held> {
    let entry = this.get(key);
    if (!entry) {
      while (this.#entries.size >= this.max) {
        const oldest = this.#entries.keys().next();
        if (oldest.done) break;
        this.#entries.delete(oldest.value);
      }
      this.#entries.set(key, (entry = new Map()));
    }
    return entry;
  }

  delete(key: string): Map<string, Held> | undefined {
    const entry = this.#entries.get(key);
    this.#entries.delete(key);
    return entry;
  }
}

const fresh = (core: string): CoreSession => ({ core, cookie: '', anonymous: true });

export class CoreSessions {
  readonly #users: Lru;
  readonly #visitors: Lru;
  readonly #pending = new Map<string, Promise<CoreSession>>();
  readonly #options: CoreSessionsOptions;
  readonly #clock: () => number;

  constructor(options: CoreSessionsOptions) {
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
    this.#users = new Lru(options.maxEntries);
    this.#visitors = new Lru(options.maxEntries);
  }

  /** Portal users and visitors held. */
  get size(): number {
    return this.#users.size + this.#visitors.size;
  }

  /** The held session of `principal` on `core`; else a user's new login there, or a visitor's cookie-less start. */
  async get(core: string, principal: VerifiedPrincipal): Promise<CoreSession> {
    const held = this.#held(core, principal);
    if (held) return held.session;
    return principal.user === null ? fresh(core) : this.#login(core, principal);
  }

  /** Forgets `stale` (if still held) and starts again: the one renewal of a dead core session. */
  async renew(stale: CoreSession, principal: VerifiedPrincipal): Promise<CoreSession> {
    const current = this.#held(stale.core, principal);
    if (current && current.session.cookie !== stale.cookie) return current.session;
    this.drop(stale, principal);
    return principal.user === null ? fresh(stale.core) : this.#login(stale.core, principal);
  }

  /** Forgets a session that is known dead without starting another. */
  drop(stale: CoreSession, principal: VerifiedPrincipal): void {
    const sessions = this.#lru(principal).get(principalKey(principal));
    if (sessions?.get(stale.core)?.session.cookie === stale.cookie) sessions.delete(stale.core);
  }

  /**
   * The core set cookies for a session (a visitor's first ANON session, a refresh, a flow's state):
   * keep them as a browser would, unless the session was replaced or forgotten meanwhile.
   */
  adopt(previous: CoreSession, cookie: string, principal: VerifiedPrincipal): void {
    const held = this.#held(previous.core, principal);
    const current = held ? held.session.cookie : principal.user === null ? '' : undefined;
    if (current !== previous.cookie) return;
    this.#lru(principal).open(principalKey(principal)).set(previous.core, { session: { ...previous, cookie }, expires: this.#clock() + this.#options.ttlMs });
  }

  /** A portal user's new core session (from `POST {gw}/api/login`); resolves the sessions it replaces. */
  put(core: string, principal: VerifiedPrincipal, cookie: string): CoreSession[] {
    const replaced = this.take(principal);
    this.#lru(principal).open(principalKey(principal)).set(core, { session: { core, cookie, anonymous: principal.user === null }, expires: this.#clock() + this.#options.ttlMs });
    return replaced;
  }

  /** Removes every session of `principal` (on every core) and returns them, for logout. */
  take(principal: VerifiedPrincipal): CoreSession[] {
    const sessions = this.#lru(principal).delete(principalKey(principal));
    return sessions ? [...sessions.values()].map((held) => held.session) : [];
  }

  #lru(principal: VerifiedPrincipal): Lru {
    return principal.user === null ? this.#visitors : this.#users;
  }

  #held(core: string, principal: VerifiedPrincipal): Held | undefined {
    const sessions = this.#lru(principal).get(principalKey(principal));
    const held = sessions?.get(core);
    if (!held || held.expires > this.#clock()) return held;
    sessions!.delete(core);
    return undefined;
  }

  #login(core: string, principal: VerifiedPrincipal): Promise<CoreSession> {
    const user = principal.user!;
    const key = JSON.stringify([core, principalKey(principal)]);
    const pending = this.#pending.get(key);
    if (pending) return pending;
    const who = { portal: principal.portalId, user: formatPrincipalName(user), visitor: principal.visitor, peer: principal.address, core };
    const attempt = this.#options.login
      .principal(core, user, principal.address)
      .then((cookie) => {
        const session: CoreSession = { core, cookie, anonymous: false };
        this.#lru(principal).open(principalKey(principal)).set(core, { session, expires: this.#clock() + this.#options.ttlMs });
        this.#options.metrics.coreLogins.inc({ kind: 'principal', outcome: 'success' });
        audit(this.#options.log, { event: 'core_login', outcome: 'success', kind: 'principal', ...who });
        return session;
      })
      .catch((error: unknown) => {
        this.#options.metrics.coreLogins.inc({ kind: 'principal', outcome: 'failure' });
        audit(this.#options.log, { event: 'core_login', outcome: 'failure', kind: 'principal', reason: (error as Error).message, ...who });
        throw error;
      })
      .finally(() => this.#pending.delete(key));
    this.#pending.set(key, attempt);
    return attempt;
  }
}

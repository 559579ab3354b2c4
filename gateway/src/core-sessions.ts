/**
 * The core sessions the gateway holds for portal principals: one per (core, portal user) or (core,
 * anonymous visitor), in a bounded, expiring LRU. Concurrent first requests of one principal share
 * one login. A session lives on the core that made it, so the key includes the core: a user whose
 * core failed simply gets a new session on the next one.
 */
import { formatPrincipalName, type VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import type { CoreLogin } from './core-login';
import { audit, type GatewayMetrics, type Logger } from './observability';
import { principalKey } from './trust';

export interface CoreSession {
  core: string;
  /** `NAME=value`, sent as the Cookie header to the core. */
  cookie: string;
  /** ANON (visitor) sessions may be re-issued by the core; USER sessions never change value. */
  anonymous: boolean;
}

interface Entry {
  session: CoreSession;
  expires: number;
  principal: string;
}

export interface CoreSessionsOptions {
  login: CoreLogin;
  maxEntries: number;
  ttlMs: number;
  log: Logger;
  metrics: GatewayMetrics;
  clock?: () => number;
}

export class CoreSessions {
  readonly #entries = new Map<string, Entry>();
  readonly #pending = new Map<string, Promise<CoreSession>>();
  readonly #options: CoreSessionsOptions;
  readonly #clock: () => number;

  constructor(options: CoreSessionsOptions) {
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The cached session of `principal` on `core`, or a new login there. */
  async get(core: string, principal: VerifiedPrincipal): Promise<CoreSession> {
    const key = cacheKey(core, principal);
    const entry = this.#entries.get(key);
    if (entry && entry.expires > this.#clock()) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      return entry.session;
    }
    if (entry) this.#entries.delete(key);
    return this.#login(key, core, principal);
  }

  /** Forgets `stale` (if still cached) and logs in again: the one renewal of a dead core session. */
  async renew(stale: CoreSession, principal: VerifiedPrincipal): Promise<CoreSession> {
    const key = cacheKey(stale.core, principal);
    const current = this.#entries.get(key);
    if (current && current.session.cookie !== stale.cookie) return current.session;
    this.#entries.delete(key);
    return this.#login(key, stale.core, principal);
  }

  /** Forgets a session that is known dead without logging in again. */
  drop(stale: CoreSession, principal: VerifiedPrincipal): void {
    const key = cacheKey(stale.core, principal);
    if (this.#entries.get(key)?.session.cookie === stale.cookie) this.#entries.delete(key);
  }

  /** The core re-issued an anonymous session (refresh or upgrade): follow it as a browser would. */
  adopt(previous: CoreSession, cookie: string, principal: VerifiedPrincipal): void {
    const key = cacheKey(previous.core, principal);
    const entry = this.#entries.get(key);
    if (entry?.session.cookie === previous.cookie) entry.session = { ...previous, cookie };
  }

  /** Removes every session of `principal` (on every core) and returns them, for logout. */
  take(principal: VerifiedPrincipal): CoreSession[] {
    const wanted = principalKey(principal);
    const taken: CoreSession[] = [];
    for (const [key, entry] of this.#entries) {
      if (entry.principal === wanted) {
        this.#entries.delete(key);
        taken.push(entry.session);
      }
    }
    return taken;
  }

  #login(key: string, core: string, principal: VerifiedPrincipal): Promise<CoreSession> {
    const pending = this.#pending.get(key);
    if (pending) return pending;
    const kind = principal.user === null ? 'visitor' : 'user';
    const user = principal.user === null ? null : formatPrincipalName(principal.user);
    const who = { portal: principal.portalId, ...(user === null ? { visitor: principal.visitor } : { user }), core };
    const attempt = this.#options.login
      .login(core, user)
      .then((cookie) => {
        const session: CoreSession = { core, cookie, anonymous: principal.user === null };
        this.#store(key, session, principalKey(principal));
        this.#options.metrics.coreLogins.inc({ kind, outcome: 'success' });
        audit(this.#options.log, { event: 'core_login', outcome: 'success', kind, ...who });
        return session;
      })
      .catch((error: unknown) => {
        this.#options.metrics.coreLogins.inc({ kind, outcome: 'failure' });
        audit(this.#options.log, { event: 'core_login', outcome: 'failure', kind, reason: (error as Error).message, ...who });
        throw error;
      })
      .finally(() => this.#pending.delete(key));
    this.#pending.set(key, attempt);
    return attempt;
  }

  #store(key: string, session: CoreSession, principal: string): void {
    this.#entries.delete(key);
    while (this.#entries.size >= this.#options.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { session, expires: this.#clock() + this.#options.ttlMs, principal });
  }
}

/** Core and principal, unambiguously (a user id may hold any character). */
function cacheKey(core: string, principal: VerifiedPrincipal): string {
  return JSON.stringify([core, principalKey(principal)]);
}

/**
 * Core sessions in this process's memory (core-sessions.ts has the rules), in a bounded, expiring
 * LRU of users' portal sessions (visitors hold nothing here: their state travels with them,
 * visitor-state.ts, so a flood of visitors cannot push anyone out). A session lives on the core that
 * made it (cores without shared sessions know only their own), so each is held per core: a user
 * whose core failed simply gets a new session on the next one. A revoked one leaves a mark under
 * REVOKED (no core is named ''), for every core.
 */
import type { VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import { freshVisitor, PrincipalLogins, sessionRevoked, type CoreSession, type CoreSessions, type CoreSessionsOptions } from './core-sessions';
import { principalKey } from './trust';

interface Held {
  session: CoreSession;
  expires: number;
}

/** The core name of a portal session's revocation mark. */
const REVOKED = '';

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

export class MemoryCoreSessions implements CoreSessions {
  readonly #users: Lru;
  readonly #logins: PrincipalLogins;
  readonly #ttlMs: number;
  readonly #clock: () => number;

  constructor(options: CoreSessionsOptions) {
    this.#clock = options.clock ?? Date.now;
    this.#ttlMs = options.ttlMs;
    this.#users = new Lru(options.maxEntries);
    this.#logins = new PrincipalLogins(options);
  }

  /** Portal users held. */
  get size(): number {
    return this.#users.size;
  }

  async get(core: string, principal: VerifiedPrincipal): Promise<CoreSession> {
    if (this.#held(REVOKED, principal)) throw sessionRevoked();
    const held = this.#held(core, principal);
    if (held) return held.session;
    return principal.user === null ? freshVisitor(core) : this.#login(core, principal);
  }

  async renew(stale: CoreSession, principal: VerifiedPrincipal): Promise<CoreSession> {
    if (this.#held(REVOKED, principal)) throw sessionRevoked();
    const current = this.#held(stale.core, principal);
    if (current && current.session.cookie !== stale.cookie) return current.session;
    await this.drop(stale, principal);
    return principal.user === null ? freshVisitor(stale.core) : this.#login(stale.core, principal);
  }

  async drop(stale: CoreSession, principal: VerifiedPrincipal): Promise<void> {
    const sessions = this.#users.get(principalKey(principal));
    if (sessions?.get(stale.core)?.session.cookie === stale.cookie) sessions.delete(stale.core);
  }

  async revoke(stale: CoreSession, principal: VerifiedPrincipal): Promise<void> {
    if (principal.user === null) return this.drop(stale, principal);
    const sessions = this.#users.get(principalKey(principal));
    if (sessions !== undefined && sessions.get(stale.core)?.session.cookie !== stale.cookie) return;
    // Every core's session of this portal session goes: the subject's sessions all ended.
    sessions?.clear();
    this.#hold(principal, { core: REVOKED, cookie: '', anonymous: false });
  }

  async adopt(previous: CoreSession, cookie: string, principal: VerifiedPrincipal): Promise<void> {
    const held = this.#held(previous.core, principal);
    const current = held ? held.session.cookie : principal.user === null ? '' : undefined;
    if (current !== previous.cookie) return;
    this.#hold(principal, { ...previous, cookie });
  }

  async put(core: string, principal: VerifiedPrincipal, cookie: string): Promise<CoreSession[]> {
    const replaced = await this.take(principal);
    this.#hold(principal, { core, cookie, anonymous: principal.user === null });
    return replaced;
  }

  async take(principal: VerifiedPrincipal): Promise<CoreSession[]> {
    const sessions = this.#users.delete(principalKey(principal));
    return sessions ? [...sessions.values()].map((held) => held.session) : [];
  }

  #hold(principal: VerifiedPrincipal, session: CoreSession): void {
    this.#users.open(principalKey(principal)).set(session.core, { session, expires: this.#clock() + this.#ttlMs });
  }

  #held(core: string, principal: VerifiedPrincipal): Held | undefined {
    const sessions = this.#users.get(principalKey(principal));
    const held = sessions?.get(core);
    if (!held || held.expires > this.#clock()) return held;
    sessions!.delete(core);
    return undefined;
  }

  async #login(core: string, principal: VerifiedPrincipal): Promise<CoreSession> {
    const cookie = await this.#logins.login(JSON.stringify([core, principalKey(principal)]), core, principal);
    const session: CoreSession = { core, cookie, anonymous: false };
    this.#hold(principal, session);
    return session;
  }
}

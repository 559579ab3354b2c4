/**
 * The core sessions the gateway holds for portal users (SPEC sections 9 and 12): a session made by
 * the client principal login or by `POST {gw}/api/login`. Visitors are not held here: the stateless
 * ANON session the core issues to a visitor travels with the visitor (visitor-state.ts), so the
 * gateway keeps nothing per visitor. Two variants, one file each:
 *
 * - `memory-core-sessions.ts`: this process only, one session per principal and core (cores that
 *   keep their sessions in memory know only their own).
 * - `redis-core-sessions.ts` (`gateway.redis`): shared by every gateway and worker, one session per
 *   principal that any core accepts (the cores share their sessions in Redis), so a user logged in
 *   through one gateway is served by another without a new core login.
 *
 * Every change is conditional on what the caller saw (compare-and-set), so two gateways racing for
 * one principal converge on one session. A store that cannot answer rejects (503): a principal is
 * never served with a session it cannot look up.
 */
import type { VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import { SessionRevoked } from '../../common/src/errors';
import { formatPrincipalName } from '../../common/src/principal-name';
import type { CoreLogin } from './core-login';
import { audit, type GatewayMetrics, type Logger } from './observability';

export interface CoreSession {
  /** The core this session is sent to. */
  core: string;
  /** The Cookie header value sent to the core; empty for a visitor whose first request is still to come. */
  cookie: string;
  /** A visitor's session: the core issues and re-issues it. A user's session never changes its value. */
  anonymous: boolean;
}

export interface CoreSessions {
  /** The held session of `principal` usable on `core`; else a user's new login there, or a visitor's cookie-less start. */
  get(core: string, principal: VerifiedPrincipal): Promise<CoreSession>;
  /** Forgets `stale` (if still held) and starts again: the one renewal of a dead core session. */
  renew(stale: CoreSession, principal: VerifiedPrincipal): Promise<CoreSession>;
  /** Forgets a session that is known dead without starting another (only if it is still the one held). */
  drop(stale: CoreSession, principal: VerifiedPrincipal): Promise<void>;
  /**
   * The core revoked `stale` (`session_revoked`: a password change or reset, a disable or a delete of
   * the user): it is replaced by a mark, so that for as long as it would have been held, `get` and
   * `renew` of this portal session throw SessionRevoked instead of logging in again (SPEC section 9).
   */
  revoke(stale: CoreSession, principal: VerifiedPrincipal): Promise<void>;
  /**
   * The core set cookies for a session (a visitor's first ANON session, a refresh, a flow's state):
   * keep them as a browser would, unless the session was replaced or forgotten meanwhile.
   */
  adopt(previous: CoreSession, cookie: string, principal: VerifiedPrincipal): Promise<void>;
  /** A portal user's new core session (from `POST {gw}/api/login`); resolves the sessions it replaces. */
  put(core: string, principal: VerifiedPrincipal, cookie: string): Promise<CoreSession[]>;
  /** Removes every session of `principal` and resolves them, for logout. */
  take(principal: VerifiedPrincipal): Promise<CoreSession[]>;
  /** For `/ready`: whether the sessions can be looked up (absent: always). */
  ready?(): Promise<boolean>;
}

export interface CoreSessionsOptions {
  login: CoreLogin;
  /** Memory: most portal users held. */
  maxEntries: number;
  ttlMs: number;
  log: Logger;
  metrics: GatewayMetrics;
  clock?: () => number;
}

/** A visitor's start on `core`: no cookie, the core will issue one. */
export const freshVisitor = (core: string): CoreSession => ({ core, cookie: '', anonymous: true });

/** What a portal session whose core session was revoked gets from the gateway: 401 `session_revoked`. */
export function sessionRevoked(): SessionRevoked {
  return new SessionRevoked('the portal session\'s svc session was ended by a change to its subject (password, disable or delete); log in again', {
    headers: { 'WWW-Authenticate': 'SvcSession realm="svc", error="session_revoked"' },
  });
}

/**
 * A portal user's client principal login to a core, counted and audited; concurrent logins of one
 * principal in this process share one (`key` says what "one" is for the variant).
 */
export class PrincipalLogins {
  readonly #pending = new Map<string, Promise<string>>();

  constructor(private readonly options: Pick<CoreSessionsOptions, 'login' | 'log' | 'metrics'>) {}

  /** Resolves the new session's Cookie header value. */
  login(key: string, core: string, principal: VerifiedPrincipal): Promise<string> {
    const pending = this.#pending.get(key);
    if (pending) return pending;
    const user = principal.user!;
    const who = { portal: principal.portalId, user: formatPrincipalName(user), visitor: principal.visitor, peer: principal.address, core };
    const attempt = this.options.login
      .principal(core, user, principal.address)
      .then((cookie) => {
        this.options.metrics.coreLogins.inc({ kind: 'principal', outcome: 'success' });
        audit(this.options.log, { event: 'core_login', outcome: 'success', kind: 'principal', ...who });
        return cookie;
      })
      .catch((error: unknown) => {
        this.options.metrics.coreLogins.inc({ kind: 'principal', outcome: 'failure' });
        audit(this.options.log, { event: 'core_login', outcome: 'failure', kind: 'principal', reason: (error as Error).message, ...who });
        throw error;
      })
      .finally(() => this.#pending.delete(key));
    this.#pending.set(key, attempt);
    return attempt;
  }
}

/**
 * A visitor's state for one request (SPEC 10.2): read from the sealed visitor cookie, changed by the
 * request (a portlet session's attributes, a newer gateway visitor state), and written back into the
 * cookie before the answer's headers go, only when it changed. Nothing of it stays on the server.
 *
 * The cookie's whole `Set-Cookie` line stays within MAX_VISITOR_COOKIE_LINE: a portlet session
 * `setAttribute` that would pass the budget throws IllegalStateException (and stores nothing), with
 * room kept for the gateway state to be refreshed later; if the line would still pass it when
 * written, the refill of a refused form (REFILL_ATTRIBUTE) is dropped first, never the flow state.
 */
import { IllegalStateException } from '../api/exceptions';
import { BaseApplicationSession, type ApplicationSessionState } from '../container/application-session';
import { REFILL_ATTRIBUTE } from '../container/services';
import type { CarriedGatewayState } from '../gateway-client';
import { MAX_VISITOR_COOKIE_LINE, VISITOR_COOKIE, type VisitorCookies, type VisitorState } from './visitor-cookie';

/**
 * Kept free by `setAttribute` for what the gateway state may grow by after it: the core refreshing
 * a visitor's stateless cookie (a new issue time, a creation time added: well under 64 bytes sealed
 * twice).
 */
export const GATEWAY_REFRESH_RESERVE = 96;

/** The visitor's portlet application session: what a MemoryApplicationSession is for a user, carried in the cookie. */
export class VisitorApplicationSession extends BaseApplicationSession {
  readonly lastAccessedTime: number;

  constructor(
    private readonly carry: VisitorCarry,
    maxInactiveInterval: number,
    now: number,
    from?: ApplicationSessionState,
  ) {
    super(maxInactiveInterval, now, from);
    this.lastAccessedTime = now;
  }

  invalidate(): void {
    this.restart(this.lastAccessedTime);
  }

  /** Throws IllegalStateException when the visitor cookie could no longer hold what this session holds. */
  assertWithinBudget(): void {
    if (!this.carry.fits(GATEWAY_REFRESH_RESERVE)) {
      throw new IllegalStateException(`a visitor's portlet session travels in its cookie, which is full (${MAX_VISITOR_COOKIE_LINE} bytes)`);
    }
  }

}

export interface VisitorCarryOptions {
  cookies: VisitorCookies;
  /** The cookie's attributes after the value, e.g. `; Path=/portal; HttpOnly; SameSite=Lax`. */
  attributes: string;
  idleSeconds: number;
  now: number;
}

/** One request's visitor: its handle, the gateway state it carries, and its portlet session once read or made. */
export class VisitorCarry {
  readonly handle: string;
  /** Sent with the visitor's gateway requests; a newer value from an answer replaces it (gateway-client.ts). */
  readonly gateway: CarriedGatewayState;
  #session: VisitorApplicationSession | undefined;
  readonly #expires: number;
  /** What the browser holds (undefined: nothing valid), to write the cookie only when it changed. */
  readonly #presented: Buffer | undefined;
  #cleared = false;

  constructor(
    private readonly options: VisitorCarryOptions,
    state: VisitorState,
    presented: boolean,
  ) {
    this.handle = state.handle;
    this.#expires = state.expires;
    this.gateway = { value: state.gateway };
    if (state.session) this.#session = new VisitorApplicationSession(this, options.idleSeconds, options.now, state.session);
    this.#presented = presented ? options.cookies.plaintext(state) : undefined;
  }

  /** The portlet application session, if there is one. */
  current(): VisitorApplicationSession | undefined {
    return this.#session;
  }

  create(): VisitorApplicationSession {
    return (this.#session ??= new VisitorApplicationSession(this, this.options.idleSeconds, this.options.now));
  }

  /** At login and logout: this visitor's state ends with the request, and is not written. */
  clear(): void {
    this.#cleared = true;
  }

  /** Whether the cookie's line, with `reserve` bytes to spare, stays within the budget. */
  fits(reserve = 0): boolean {
    return this.#lineLength(this.options.cookies.plaintext(this.#state()).length) + reserve <= MAX_VISITOR_COOKIE_LINE;
  }

  /**
   * The `Set-Cookie` line for the answer, or undefined when nothing changed (or it was cleared). Past
   * the budget the refill is dropped first; a state that would pass it even then is not written (the
   * browser keeps the cookie it has, which fitted), which setAttribute's reserve makes unreachable.
   */
  setCookieLine(): string | undefined {
    if (this.#cleared) return undefined;
    let plaintext = this.options.cookies.plaintext(this.#state());
    if (this.#presented !== undefined && plaintext.equals(this.#presented)) return undefined;
    if (this.#lineLength(plaintext.length) > MAX_VISITOR_COOKIE_LINE && this.#session !== undefined) {
      for (const name of [...this.#session.attributes.keys()]) if (name === REFILL_ATTRIBUTE || name.endsWith(`?${REFILL_ATTRIBUTE}`)) this.#session.attributes.delete(name);
      plaintext = this.options.cookies.plaintext(this.#state());
    }
    if (this.#lineLength(plaintext.length) > MAX_VISITOR_COOKIE_LINE) return undefined;
    return `${VISITOR_COOKIE}=${this.options.cookies.seal(plaintext)}${this.#attributesNow()}`;
  }

  #state(): VisitorState {
    return { handle: this.handle, expires: this.#expires, gateway: this.gateway.value, session: this.#session?.state() };
  }

  #lineLength(plaintextLength: number): number {
    return VISITOR_COOKIE.length + 1 + this.options.cookies.sealedLength(plaintextLength) + this.#attributesNow().length;
  }

  /** The attributes, with the seconds the cookie has left (it expires when its first issue says). */
  #attributesNow(): string {
    return `${this.options.attributes}; Max-Age=${Math.max(0, this.#expires - Math.floor(this.options.now / 1000))}`;
  }
}

/**
 * Who a request is from: a logged-in user (a live `SVCPORTALSESSION`) or a visitor (the sealed
 * visitor cookie, issued here when missing or invalid; nothing stored on the server: the visitor's
 * state is written back into its cookie before the answer's headers, when it changed). Also what
 * follows from it: the session's handle, its CSRF token, the gateway principal and the container's
 * session access.
 */
import type { Request, Response } from 'express';
import { readCookie } from '../../../common/src/http/read-cookie';
import type { SessionAccess } from '../container/services';
import type { GatewayPrincipal } from '../gateway-client';
import type { Csrf } from './csrf';
import { PORTAL_SESSION_COOKIE, type PortalSession, type PortalSessionStore } from './session-store';
import { VISITOR_COOKIE, type VisitorCookies } from './visitor-cookie';
import { VisitorCarry } from './visitor-session';

export type Identity = { kind: 'user'; session: PortalSession; cookie: string } | { kind: 'visitor'; handle: string; carry: VisitorCarry };

export interface IdentityOptions {
  root: string;
  secure: boolean;
  sessions: PortalSessionStore;
  visitors: VisitorCookies;
  csrf: Csrf;
  /** A visitor's portlet session's `maxInactiveInterval` (it lives as long as the visitor cookie). */
  idleSeconds: number;
  now?: () => number;
}

export class Identities {
  readonly #now: () => number;

  constructor(private readonly options: IdentityOptions) {
    this.#now = options.now ?? Date.now;
  }

  /** The request's identity; a visitor's state (a new visitor's too) goes into its cookie on this answer, when it changed. */
  of(req: Request, res: Response): Identity {
    const cookie = readCookie(req, PORTAL_SESSION_COOKIE);
    const session = this.options.sessions.resolve(cookie);
    if (session !== undefined && cookie !== undefined) return { kind: 'user', session, cookie };
    if (cookie !== undefined) this.clearSessionCookie(res);
    const now = this.#now();
    const presented = this.options.visitors.read(readCookie(req, VISITOR_COOKIE), now);
    const state = presented ?? this.options.visitors.issue(now);
    const carry = new VisitorCarry({ cookies: this.options.visitors, attributes: this.#attributes(), idleSeconds: this.options.idleSeconds, now }, state, presented !== undefined);
    beforeHeaders(res, () => {
      const line = carry.setCookieLine();
      if (line !== undefined) this.#appendSetCookie(res, VISITOR_COOKIE, line);
    });
    return { kind: 'visitor', handle: carry.handle, carry };
  }

  /** A visitor for an answer that must set no cookie (outside the portal's root, where its cookies are not sent). */
  cookielessVisitor(): Identity & { kind: 'visitor' } {
    const now = this.#now();
    const carry = new VisitorCarry({ cookies: this.options.visitors, attributes: this.#attributes(), idleSeconds: this.options.idleSeconds, now }, this.options.visitors.issue(now), false);
    carry.clear();
    return { kind: 'visitor', handle: carry.handle, carry };
  }

  /** At login and logout: the visitor's state ends, and its cookie is cleared (the next visit starts afresh). */
  clearVisitor(res: Response, identity: Identity): void {
    if (identity.kind === 'visitor') identity.carry.clear();
    this.#setCookie(res, VISITOR_COOKIE, '', 0);
  }

  setSessionCookie(res: Response, cookie: string): void {
    this.#setCookie(res, PORTAL_SESSION_COOKIE, cookie);
  }

  clearSessionCookie(res: Response): void {
    this.#setCookie(res, PORTAL_SESSION_COOKIE, '', 0);
  }

  handleOf(identity: Identity): string {
    return identity.kind === 'user' ? identity.session.handle : identity.handle;
  }

  csrfOf(identity: Identity): string {
    return this.options.csrf.tokenFor(this.handleOf(identity));
  }

  principalOf(identity: Identity, address: string | null): GatewayPrincipal {
    if (identity.kind === 'user') return { user: identity.session.principal, visitor: identity.session.handle, address };
    return { user: null, visitor: identity.handle, address, state: identity.carry.gateway };
  }

  /** The portlet application's session: a user's lives with the portal session; a visitor's travels in its cookie, made on first write. */
  sessionAccess(identity: Identity): SessionAccess {
    if (identity.kind === 'user') {
      const application = identity.session.application;
      return { handle: identity.session.handle, current: () => application, create: () => application };
    }
    const { carry } = identity;
    return { handle: identity.handle, current: () => carry.current(), create: () => carry.create() };
  }

  /** `; Path=root; HttpOnly; SameSite=Lax` (and `; Secure` over TLS): what follows every cookie's value. */
  #attributes(): string {
    return `; Path=${this.options.root}; HttpOnly; SameSite=Lax${this.options.secure ? '; Secure' : ''}`;
  }

  /** `maxAge` undefined: a browser-session cookie. */
  #setCookie(res: Response, name: string, value: string, maxAge?: number): void {
    this.#appendSetCookie(res, name, `${name}=${value}${this.#attributes()}${maxAge === undefined ? '' : `; Max-Age=${maxAge}`}`);
  }

  /** Sets the line of cookie `name`, replacing one set before on this answer. */
  #appendSetCookie(res: Response, name: string, line: string): void {
    const existing = res.getHeader('Set-Cookie');
    const others = (Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)]).filter((c) => !c.startsWith(`${name}=`));
    res.setHeader('Set-Cookie', [...others, line]);
  }
}

/** Runs `listener` once, just before the answer's headers are written (node writes them through writeHead). */
function beforeHeaders(res: Response, listener: () => void): void {
  const writeHead = res.writeHead;
  let ran = false;
  res.writeHead = function (this: Response, ...args: unknown[]) {
    if (!ran) {
      ran = true;
      listener();
    }
    return (writeHead as (...a: unknown[]) => Response).apply(this, args);
  } as Response['writeHead'];
}

/** The visitor's address as an IP text (an IPv4-mapped IPv6 address as IPv4), or null. */
export function addressOf(req: Request): string | null {
  const ip = req.ip ?? req.socket.remoteAddress;
  if (!ip) return null;
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/**
 * Who a request is from: a logged-in user (a live `SVCPORTALSESSION`) or a visitor (the signed
 * visitor cookie, issued here when missing; nothing stored). Also what follows from it: the
 * session's handle, its CSRF token, the gateway principal and the container's session access.
 */
import type { Request, Response } from 'express';
import { readCookie } from '../../../common/src/http/read-cookie';
import type { SessionAccess } from '../container/services';
import type { GatewayPrincipal } from '../gateway-client';
import type { Csrf } from './csrf';
import { PORTAL_SESSION_COOKIE, type PortalSession, type PortalSessionStore } from './session-store';
import { VISITOR_COOKIE, type VisitorCookies } from './visitor-cookie';

export type Identity = { kind: 'user'; session: PortalSession; cookie: string } | { kind: 'visitor'; handle: string };

export interface IdentityOptions {
  root: string;
  secure: boolean;
  sessions: PortalSessionStore;
  visitors: VisitorCookies;
  csrf: Csrf;
  now?: () => number;
}

export class Identities {
  readonly #now: () => number;

  constructor(private readonly options: IdentityOptions) {
    this.#now = options.now ?? Date.now;
  }

  /** The request's identity; a visitor without a valid cookie gets one on this answer. */
  of(req: Request, res: Response): Identity {
    const cookie = readCookie(req, PORTAL_SESSION_COOKIE);
    const session = this.options.sessions.resolve(cookie);
    if (session !== undefined && cookie !== undefined) return { kind: 'user', session, cookie };
    if (cookie !== undefined) this.clearSessionCookie(res);
    const handle = this.options.visitors.read(readCookie(req, VISITOR_COOKIE), this.#now());
    return handle !== undefined ? { kind: 'visitor', handle } : this.newVisitor(res);
  }

  /** A fresh visitor handle and cookie (at logout, and for a visitor without one). */
  newVisitor(res: Response): Identity & { kind: 'visitor' } {
    const { value, handle } = this.options.visitors.issue(this.#now());
    this.#setCookie(res, VISITOR_COOKIE, value, this.options.visitors.lifetimeSeconds);
    return { kind: 'visitor', handle };
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
    return { user: identity.kind === 'user' ? identity.session.principal : null, visitor: this.handleOf(identity), address };
  }

  /** The portlet application's session: a user's lives with the portal session; a visitor's is made on first write. */
  sessionAccess(identity: Identity): SessionAccess {
    if (identity.kind === 'user') {
      const application = identity.session.application;
      return { handle: identity.session.handle, current: () => application, create: () => application };
    }
    const { sessions } = this.options;
    return { handle: identity.handle, current: () => sessions.visitor(identity.handle, false), create: () => sessions.visitor(identity.handle, true)! };
  }

  /** HttpOnly, SameSite=Lax, Path=root, Secure over TLS; `maxAge` undefined: a browser-session cookie. */
  #setCookie(res: Response, name: string, value: string, maxAge?: number): void {
    const parts = [`${name}=${value}`, `Path=${this.options.root}`, 'HttpOnly', 'SameSite=Lax'];
    if (this.options.secure) parts.push('Secure');
    if (maxAge !== undefined) parts.push(`Max-Age=${maxAge}`);
    const existing = res.getHeader('Set-Cookie');
    const others = (Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)]).filter((c) => !c.startsWith(`${name}=`));
    res.setHeader('Set-Cookie', [...others, parts.join('; ')]);
  }
}

/** The visitor's address as an IP text (an IPv4-mapped IPv6 address as IPv4), or null. */
export function addressOf(req: Request): string | null {
  const ip = req.ip ?? req.socket.remoteAddress;
  if (!ip) return null;
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

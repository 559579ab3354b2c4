import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AuthenticationRequired, SessionRevoked } from '../../../common/src/errors';
import { Credentials } from '../authenticators/authenticator';
import type { Core } from '../core';
import type { Session } from '../sessions/session';
import { readCookie, setSessionCookie } from './cookies';
import { peerOf } from './peer';

/** The seed's not-enforced URIs (5.1.4), relative to the context root. */
const NOT_ENFORCED: Array<{ methods: string[]; pattern: RegExp }> = [
  { methods: ['GET', 'HEAD'], pattern: /^\/$/ },
  { methods: ['GET', 'HEAD', 'POST'], pattern: /^\/(login|logout)$/ },
  { methods: ['GET', 'HEAD', 'POST'], pattern: /^\/anon\/[^/]+$/ },
  { methods: ['POST'], pattern: /^(\/resources)?\/contexts\/[^/]+\/subjects$/ },
  { methods: ['GET', 'PUT'], pattern: /^(\/resources)?\/contexts\/[^/]+\/subjects\/[^/]+\/password\/forgot$/ },
];

export function isNotEnforced(method: string, path: string): boolean {
  return NOT_ENFORCED.some((rule) => rule.methods.includes(method) && rule.pattern.test(path));
}

/** Browsers get pages and redirects; programs get problem details (SPEC section 4). */
export function wantsPage(req: Request): boolean {
  return req.accepts(['application/json', 'application/xml', 'text/html']) === 'text/html' && Boolean(req.headers.accept?.includes('text/html'));
}

/**
 * An identity-provider session token carried in a cookie (SPEC section 4, "or a configured cookie"):
 * the cookie named by `options.cookie` of an identity-provider authenticator of the client.
 */
function idpCookieToken(core: Core, authenticatorIds: readonly string[], req: Request): string | undefined {
  for (const id of authenticatorIds) {
    const config = core.authenticator(id)?.config;
    if (config?.variant === 'idpSession' && typeof config.options.cookie === 'string') {
      const token = readCookie(req, config.options.cookie);
      if (token) return token;
    }
  }
  return undefined;
}

/**
 * Step 5 of the seed's filter: the global default client's authenticators, each tried only when its
 * kind's credentials are present, make a new session for a request without a valid one.
 */
async function defaultClientSession(core: Core, req: Request, peer: string): Promise<Session | undefined> {
  const client = core.client(core.config.settings.defaultClient);
  if (!client) return undefined;
  const header = req.headers[core.config.settings.credentialNames.httpHeader.toLowerCase()];
  const credentials = new Credentials({ header: typeof header === 'string' ? header : undefined, token: idpCookieToken(core, client.authenticators, req) });
  const request = { credentials, client, peer, clientValidated: false };
  for (const id of client.authenticators) {
    const authenticator = core.authenticator(id);
    if (!authenticator || !authenticator.applies(request)) continue;
    const result = await authenticator.authenticate(request);
    if (!result) continue;
    const { session, cookieValue } = await core.sessions.create({
      type: authenticator.sessionType,
      clientId: client.id === core.config.settings.defaultClient && result.principal === null ? '' : client.id,
      principal: result.principal,
      level: result.level,
      authenticator: id,
      message: result.message,
    });
    req.svc.issueCookie = cookieValue;
    req.svc.cookieValue = cookieValue;
    return session;
  }
  return undefined;
}

/**
 * Every request under the context root passes here first (seed 5.1.5): the session cookie, then
 * the default client, then the not-enforced URIs (an INTERNAL session), else a refusal that tells
 * the client how to log in. `path` is relative to the context root. Resolves true when the request
 * goes on with `req.svc` set, false when it was answered here (a browser's redirect to the login
 * page). Login and logout themselves are handled by their routes.
 */
export async function authenticate(core: Core, req: Request, res: Response, path: string): Promise<boolean> {
  const peer = peerOf(core, req);
  const presented = readCookie(req, core.config.settings.sessionCookie.name);
  const resolved = await core.sessions.resolve(presented);
  // An INTERNAL session serves the not-enforced URIs alone (SPEC 4): elsewhere it is no session, but
  // its cookie, which may carry a visitor's flow, is kept.
  const internalElsewhere = resolved.session?.type === 'INTERNAL' && !isNotEnforced(req.method, path);
  req.svc = { id: req.svc?.id ?? randomUUID(), peer, session: resolved.session as Session, sessionExpired: false, cookieValue: presented };
  if (resolved.session && !internalElsewhere) {
    if (resolved.needsRefresh) {
      const refreshed = await core.sessions.refresh(presented!, resolved.session);
      req.svc.issueCookie = refreshed.cookieValue;
      req.svc.cookieValue = refreshed.cookieValue;
    }
  } else if (resolved.revoked && !isNotEnforced(req.method, path)) {
    return refuseRevoked(core, req, res);
  } else {
    req.svc.sessionExpired = resolved.presentedInvalid;
    req.svc.cookieValue = undefined;
    let session = await defaultClientSession(core, req, peer);
    if (!session && isNotEnforced(req.method, path)) {
      const internal = await core.sessions.create({ type: 'INTERNAL', clientId: '', principal: null, level: 0, authenticator: 'internal' });
      req.svc.issueCookie = internal.cookieValue;
      req.svc.cookieValue = internal.cookieValue;
      session = internal.session;
    }
    if (!session) {
      const loginUrl = `${core.config.server.contextRoot}/login`;
      if (presented !== undefined && !internalElsewhere) setSessionCookie(core, req, res, undefined);
      if (wantsPage(req)) {
        res.redirect(302, `${loginUrl}?goto=${encodeURIComponent(req.originalUrl)}`);
        return false;
      }
      const names = core.config.settings.credentialNames;
      throw new AuthenticationRequired('log in first', {
        headers: { 'WWW-Authenticate': `SvcSession realm="svc", login="${loginUrl}"` },
        extensions: {
          login: loginUrl,
          parameters: [names.client, names.clientcred, names.user, names.password],
        },
      });
    }
    req.svc.session = session;
  }
  if (req.svc.issueCookie) setSessionCookie(core, req, res, req.svc.issueCookie);
  return true;
}

/**
 * A revoked session (its subject's password changed, or it was disabled or deleted: SPEC section 4)
 * is never replaced by step 5's new session, which would hide why it ended: a program gets 401
 * `session_revoked`, a browser the login page. The not-enforced URIs (the login itself) serve it as
 * they serve anyone.
 */
function refuseRevoked(core: Core, req: Request, res: Response): false {
  const loginUrl = `${core.config.server.contextRoot}/login`;
  if (wantsPage(req)) {
    res.redirect(302, `${loginUrl}?goto=${encodeURIComponent(req.originalUrl)}`);
    return false;
  }
  throw new SessionRevoked('this session was ended by a change to its subject (password, disable or delete); log in again', {
    headers: { 'WWW-Authenticate': 'SvcSession realm="svc", error="session_revoked"' },
    extensions: { login: loginUrl },
  });
}

/** authenticate() as express middleware, for the routes express serves under the context root. */
export function authenticationFilter(core: Core): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    void authenticate(core, req, res, req.path).then((goOn) => goOn && next(), next);
  };
}

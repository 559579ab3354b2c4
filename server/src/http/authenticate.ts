import { AuthenticationRequired, SessionRevoked } from '../../../common/src/errors';
import { Credentials, type Authenticator } from '../authenticators/authenticator';
import type { ClientConfig } from '../config/types';
import type { Session } from '../sessions/session';
import type { SessionManager } from '../sessions/session-manager';
import { readCookie, setSessionCookie } from './cookies';
import { step, type Exchange, type Step } from './exchange';
import { wantsPage } from './respond';

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

/** What the authentication filter uses: the sessions, the running configuration's clients and authenticators, and whose address a request counts as. */
export interface AuthenticationDeps {
  sessions: SessionManager;
  client(id: string): ClientConfig | undefined;
  authenticator(id: string): Authenticator | undefined;
  peerOf(x: Exchange): string;
}

/**
 * Every request under the context root passes here first (seed 5.1.5): the session cookie, then
 * the default client, then the not-enforced URIs (an INTERNAL session), else a refusal that tells
 * the client how to log in (a browser: a redirect to the login page, which answers the request).
 * Leaves the session, peer and cookie on `x.state`. Login and logout themselves are their routes'.
 */
export function authenticate(deps: AuthenticationDeps): Step {
  return step('authenticate', (x) => authenticateExchange(deps, x));
}

export async function authenticateExchange(deps: AuthenticationDeps, x: Exchange): Promise<void> {
  const { req, config, state } = x;
  const notEnforced = isNotEnforced(req.method, x.path);
  const peer = deps.peerOf(x);
  const presented = readCookie(req, config.settings.sessionCookie.name);
  const resolved = await deps.sessions.resolve(presented);
  // An INTERNAL session serves the not-enforced URIs alone (SPEC 4): elsewhere it is no session, but
  // its cookie, which may carry a visitor's flow, is kept.
  const internalElsewhere = resolved.session?.type === 'INTERNAL' && !notEnforced;
  state.peer = peer;
  state.sessionExpired = false;
  state.cookieValue = presented;
  if (resolved.session && !internalElsewhere) {
    state.session = resolved.session;
    if (resolved.needsRefresh) {
      const refreshed = await deps.sessions.refresh(presented!, resolved.session);
      state.issueCookie = refreshed.cookieValue;
      state.cookieValue = refreshed.cookieValue;
    }
  } else if (resolved.revoked && !notEnforced) {
    return refuseRevoked(x);
  } else {
    state.sessionExpired = resolved.presentedInvalid;
    state.cookieValue = undefined;
    let session = await defaultClientSession(deps, x, peer);
    if (!session && notEnforced) {
      const internal = await deps.sessions.create({ type: 'INTERNAL', clientId: '', principal: null, level: 0, authenticator: 'internal' });
      state.issueCookie = internal.cookieValue;
      state.cookieValue = internal.cookieValue;
      session = internal.session;
    }
    if (!session) {
      if (presented !== undefined && !internalElsewhere) setSessionCookie(x, undefined);
      return refuseUnauthenticated(x);
    }
    state.session = session;
  }
  if (state.issueCookie) setSessionCookie(x, state.issueCookie);
}

/**
 * An identity-provider session token carried in a cookie (SPEC section 4, "or a configured cookie"):
 * the cookie named by `options.cookie` of an identity-provider authenticator of the client.
 */
function idpCookieToken(deps: AuthenticationDeps, x: Exchange, authenticatorIds: readonly string[]): string | undefined {
  for (const id of authenticatorIds) {
    const config = deps.authenticator(id)?.config;
    if (config?.variant === 'idpSession' && typeof config.options.cookie === 'string') {
      const token = readCookie(x.req, config.options.cookie);
      if (token) return token;
    }
  }
  return undefined;
}

/**
 * Step 5 of the seed's filter: the global default client's authenticators, each tried only when its
 * kind's credentials are present, make a new session for a request without a valid one.
 */
async function defaultClientSession(deps: AuthenticationDeps, x: Exchange, peer: string): Promise<Session | undefined> {
  const { defaultClient, credentialNames } = x.config.settings;
  const client = deps.client(defaultClient);
  if (!client) return undefined;
  const header = x.req.headers[credentialNames.httpHeader.toLowerCase()];
  const credentials = new Credentials({ header: typeof header === 'string' ? header : undefined, token: idpCookieToken(deps, x, client.authenticators) });
  const request = { credentials, client, peer, clientValidated: false };
  for (const id of client.authenticators) {
    const authenticator = deps.authenticator(id);
    if (!authenticator || !authenticator.applies(request)) continue;
    const result = await authenticator.authenticate(request);
    if (!result) continue;
    const { session, cookieValue } = await deps.sessions.create({
      type: authenticator.sessionType,
      clientId: client.id === defaultClient && result.principal === null ? '' : client.id,
      principal: result.principal,
      level: result.level,
      authenticator: id,
      message: result.message,
    });
    x.state.issueCookie = cookieValue;
    x.state.cookieValue = cookieValue;
    return session;
  }
  return undefined;
}

/** A browser is sent to the login page, back here after it; a program is told how to log in. */
function refuseUnauthenticated(x: Exchange): void {
  const loginUrl = `${x.config.server.contextRoot}/login`;
  if (wantsPage(x.req)) return x.res.redirect(302, `${loginUrl}?goto=${encodeURIComponent(x.req.originalUrl)}`);
  const names = x.config.settings.credentialNames;
  throw new AuthenticationRequired('log in first', {
    headers: { 'WWW-Authenticate': `SvcSession realm="svc", login="${loginUrl}"` },
    extensions: { login: loginUrl, parameters: [names.client, names.clientcred, names.user, names.password] },
  });
}

/**
 * A revoked session (its subject's password changed, or it was disabled or deleted: SPEC section 4)
 * is never replaced by step 5's new session, which would hide why it ended: a program gets 401
 * `session_revoked`, a browser the login page. The not-enforced URIs (the login itself) serve it as
 * they serve anyone.
 */
function refuseRevoked(x: Exchange): void {
  const loginUrl = `${x.config.server.contextRoot}/login`;
  if (wantsPage(x.req)) return x.res.redirect(302, `${loginUrl}?goto=${encodeURIComponent(x.req.originalUrl)}`);
  throw new SessionRevoked('this session was ended by a change to its subject (password, disable or delete); log in again', {
    headers: { 'WWW-Authenticate': 'SvcSession realm="svc", error="session_revoked"' },
    extensions: { login: loginUrl },
  });
}

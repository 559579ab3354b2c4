/**
 * The portal's login and logout (SPEC 10.2). The portal keeps no passwords: the name and password go
 * to `POST {gw}/api/login`, so svc's checks, lockout (counted per visitor address) and throttles
 * apply. Success makes a new `SVCPORTALSESSION` (never one the browser offered) holding the
 * principal and its svc roles; every refusal by svc reads the same, whether the name exists or not.
 */
import type { Request, Response } from 'express';
import { Forbidden, InvalidRequest } from '../../../../common/src/errors';
import { principalNameOf } from '../../../../common/src/principal-name';
import { SvcClientError } from '../../../../client/src/errors';
import { field, readBody } from '../body';
import type { PortalDeps } from '../deps';
import { addressOf, type Identity } from '../identity';
import { audit } from '../observability';
import { isOwnLocation } from '../page-url-provider';
import { sendLayout } from '../respond';
import { loginForm } from '../theme/forms';
import { html } from '../../../../common/src/html';

/** Where to go after login: a path under the portal's root, else the root. */
function gotoOf(deps: PortalDeps, value: unknown): string | undefined {
  const root = deps.config.root;
  if (typeof value !== 'string' || !isOwnLocation(value, deps.publicOrigin())) return undefined;
  const path = value.startsWith('/') ? value : new URL(value).pathname + new URL(value).search;
  return path === root || path.startsWith(`${root}/`) ? path : undefined;
}

function showForm(deps: PortalDeps, res: Response, identity: Identity, status: number, options: { goto?: string; user?: string; message?: string } = {}): void {
  const form = loginForm({ action: `${deps.config.root}/login`, csrf: deps.identities.csrfOf(identity), ...options });
  sendLayout(deps, res, status, identity, 'Log in', form);
}

export function loginPage(deps: PortalDeps, req: Request, res: Response, identity: Identity): void {
  showForm(deps, res, identity, 200, { goto: gotoOf(deps, req.query.goto) });
}

export async function login(deps: PortalDeps, req: Request, res: Response, identity: Identity): Promise<void> {
  const body = await readBody(req, res, 64 * 1024);
  if (!deps.csrf.accepts(req, deps.identities.handleOf(identity), field(body, '_csrf'))) {
    throw new Forbidden('This form was not sent from this portal, or it is too old. Reload the page and try again.');
  }
  const goto = gotoOf(deps, field(body, 'goto'));
  const user = field(body, 'user') ?? '';
  const password = field(body, 'password') ?? '';
  if (!body.form || user.trim() === '' || password === '' || user.length > 1024 || password.length > 1024) {
    return showForm(deps, res, identity, 400, { goto, user: user.slice(0, 1024), message: 'Enter your user name and password.' });
  }
  const address = addressOf(req);
  // The login is asserted for the portal session it makes (SPEC 9): its core session is that session's alone.
  const prepared = deps.sessions.prepare();
  let answer;
  try {
    answer = await deps.gateway.login({ user: null, visitor: prepared.handle, address }, user, password);
  } catch (error) {
    deps.metrics.logins.inc({ outcome: 'failure' });
    const code = error instanceof SvcClientError ? error.code : 'error';
    audit(deps.log, { event: 'portal_login', outcome: 'failure', reason: code, peer: address, requestId: res.locals.requestId });
    const { status, message } = loginRefusal(error);
    return showForm(deps, res, identity, status, { goto, user, message });
  }
  const principal = principalNameOf(answer.session.principal);
  if (!principal) throw new InvalidRequest('svc answered a login without a principal');
  // Fixation: the session the browser came with (if any) ends; the new one has a new id. The
  // visitor's state (its cookie) ends too.
  if (identity.kind === 'user') deps.sessions.end(identity.cookie);
  const { cookie, session, ended } = deps.sessions.create(principal, answer.roles, prepared);
  // Past maxSessionsPerPrincipal the principal's oldest portal sessions ended: so do their core sessions.
  for (const old of ended) {
    audit(deps.log, { event: 'portal_session_end', outcome: 'success', reason: 'max_sessions_per_principal', user: old.name, session: old.handle, requestId: res.locals.requestId });
    deps.gateway.logout({ user: old.principal, visitor: old.handle, address }).catch((error: unknown) => deps.log.warn({ requestId: res.locals.requestId, err: error }, 'gateway logout failed'));
  }
  deps.identities.setSessionCookie(res, cookie);
  deps.identities.clearVisitor(res, identity);
  deps.metrics.logins.inc({ outcome: 'success' });
  audit(deps.log, { event: 'portal_login', outcome: 'success', user: session.name, session: session.handle, peer: address, requestId: res.locals.requestId });
  res.redirect(303, goto ?? `${deps.config.root}/`);
}

/** svc's refusal in words: the same for a wrong password and an unknown name. */
function loginRefusal(error: unknown): { status: number; message: string } {
  if (error instanceof SvcClientError) {
    if (error.status === 401 || error.code === 'login_failed') return { status: 401, message: 'The user name or password is not correct.' };
    if (error.status === 429) return { status: 429, message: 'Too many failed attempts. Wait a while and try again.' };
    if (error.status === 400) return { status: 400, message: 'Enter your user name and password.' };
  }
  return { status: 503, message: 'The service is unavailable; try again.' };
}

export function logoutPage(deps: PortalDeps, _req: Request, res: Response, identity: Identity): void {
  const body = html`<form method="post" action="${deps.config.root}/logout"><input type="hidden" name="_csrf" value="${deps.identities.csrfOf(identity)}"><button class="portlet-form-button" type="submit">Log out</button></form>`;
  sendLayout(deps, res, 200, identity, 'Log out', body);
}

/** Ends the portal session and the user's core session at the gateway; the visitor cookie is cleared too (the browser's next request is a new visitor's). */
export async function logout(deps: PortalDeps, req: Request, res: Response, identity: Identity): Promise<void> {
  const body = await readBody(req, res, 64 * 1024);
  if (!deps.csrf.accepts(req, deps.identities.handleOf(identity), field(body, '_csrf'))) {
    throw new Forbidden('This form was not sent from this portal, or it is too old. Reload the page and try again.');
  }
  if (identity.kind === 'user') {
    deps.sessions.end(identity.cookie);
    deps.identities.clearSessionCookie(res);
    deps.identities.clearVisitor(res, identity);
    const principal = deps.identities.principalOf(identity, addressOf(req));
    await deps.gateway.logout(principal).catch((error: unknown) => deps.log.warn({ requestId: res.locals.requestId, err: error }, 'gateway logout failed'));
    audit(deps.log, { event: 'portal_logout', outcome: 'success', user: identity.session.name, session: identity.session.handle, requestId: res.locals.requestId });
  }
  res.redirect(303, `${deps.config.root}/`);
}

/**
 * The portal's login, step-up and logout (SPEC 10.2, 15). The portal keeps no passwords: the name
 * and password go to `POST {gw}/api/login`, so svc's checks, lockout (counted per visitor address)
 * and throttles apply. Success makes a new `SVCPORTALSESSION` (never one the browser offered) holding
 * the principal and its svc roles; every refusal by svc reads the same, whether the name exists or not.
 *
 * A subject with a second factor logs in in two steps: the right password answers `otp_required`,
 * and the portal asks for the code. Between the steps it holds the gateway's sealed `pending` and the
 * cookie value of the session it will make (the gateway bound the pending to that session's handle)
 * in the visitor's own sealed cookie (a logged-in user's: in its portal session): never a session
 * until the code is right, single-use, 5 minutes.
 *
 * A step-up (`{root}/step-up`, where a portlet's control denied with `step_up_required` leads) asks
 * the portal user's password and code again and logs in through the gateway asserted for the user and
 * this portal session's handle: the gateway replaces this session's core session with the level 3
 * one. The portal session keeps its principal and handle and gets a new cookie value. A user with no
 * second factor of their own could never reach level 3 (what asks for it, e.g. removing another's
 * factor, would refuse again): the step-up page says so and leads to Self-Service instead of a form.
 */
import type { Request, Response } from 'express';
import { Forbidden, InvalidRequest } from '../../../../common/src/errors';
import { principalNameOf } from '../../../../common/src/principal-name';
import { SvcClientError } from '../../../../client/src/errors';
import { html } from '../../../../common/src/html';
import { dropRenderCache } from '../../container/expiration-cache';
import { apiPath, type LoginAnswer } from '../../gateway-client';
import { field, readBody, type PostedBody } from '../body';
import type { PortalDeps } from '../deps';
import { addressOf, type Identity } from '../identity';
import { audit } from '../observability';
import { isOwnLocation } from '../page-url-provider';
import { secondFactorPage } from '../pages';
import { sendLayout } from '../respond';
import type { PreparedSession } from '../session-store';
import { codeForm, loginForm, ownFactorNeeded, stepUpForm } from '../theme/forms';

/** How long a password step waits for its code: the core's pending token lives 5 minutes too. */
const PENDING_MS = 5 * 60 * 1000;
/** Where a visitor's (or a user's) login between its two steps is held. */
const HELD_LOGIN = 'svc.portal.login';

/** A login between its password and its code. */
interface HeldLogin {
  pending: string;
  /** The session the code will make (its handle is what the gateway bound the pending to). */
  cookie: string;
  handle: string;
  goto?: string;
  until: number;
}

/** Where to go after login: a path under the portal's root, else the root. Never another origin. */
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

function showCode(deps: PortalDeps, res: Response, identity: Identity, status: number, options: { goto?: string; message?: string; stepUp?: boolean }): void {
  const root = deps.config.root;
  const restart = options.stepUp ? `${root}/step-up${options.goto ? `?goto=${encodeURIComponent(options.goto)}` : ''}` : `${root}/login`;
  const form = codeForm({ action: `${root}/${options.stepUp ? 'step-up' : 'login'}`, csrf: deps.identities.csrfOf(identity), restart, ...options });
  // The answer to a password: never kept by a cache or shown again by Back.
  res.setHeader('Cache-Control', 'no-store');
  sendLayout(deps, res, status, identity, options.stepUp ? 'Confirm it is you' : 'Your code', form);
}

function checkCsrf(deps: PortalDeps, req: Request, identity: Identity, body: PostedBody): void {
  if (!deps.csrf.accepts(req, deps.identities.handleOf(identity), field(body, '_csrf'))) {
    throw new Forbidden('This form was not sent from this portal, or it is too old. Reload the page and try again.');
  }
}

export function loginPage(deps: PortalDeps, req: Request, res: Response, identity: Identity): void {
  showForm(deps, res, identity, 200, { goto: gotoOf(deps, req.query.goto) });
}

export async function login(deps: PortalDeps, req: Request, res: Response, identity: Identity): Promise<void> {
  const body = await readBody(req, res, 64 * 1024);
  checkCsrf(deps, req, identity, body);
  const goto = gotoOf(deps, field(body, 'goto'));
  const otp = field(body, 'otp');
  if (otp !== undefined) return loginCode(deps, req, res, identity, otp, goto);
  const user = field(body, 'user') ?? '';
  const password = field(body, 'password') ?? '';
  if (!body.form || user.trim() === '' || password === '' || user.length > 1024 || password.length > 1024) {
    return showForm(deps, res, identity, 400, { goto, user: user.slice(0, 1024), message: 'Enter your user name and password.' });
  }
  const address = addressOf(req);
  // The login is asserted for the portal session it makes (SPEC 9): its core session is that session's alone.
  const prepared = deps.sessions.prepare();
  let answer: LoginAnswer;
  try {
    answer = await deps.gateway.login({ user: null, visitor: prepared.handle, address }, user, password);
  } catch (error) {
    loginFailed(deps, res, address, error);
    const { status, message } = loginRefusal(error);
    return showForm(deps, res, identity, status, { goto, user, message });
  }
  if ('otpRequired' in answer) {
    hold(identity, { pending: answer.otpRequired, ...prepared, goto, until: Date.now() + PENDING_MS });
    audit(deps.log, { event: 'portal_login', outcome: 'failure', reason: 'otp_required', peer: address, requestId: res.locals.requestId });
    return showCode(deps, res, identity, 200, { goto });
  }
  complete(deps, req, res, identity, prepared, answer, goto);
}

/** The second step: the code for the held login; the held login is spent whatever the outcome (the core spends its token too). */
async function loginCode(deps: PortalDeps, req: Request, res: Response, identity: Identity, otp: string, goto: string | undefined): Promise<void> {
  const code = otp.trim();
  if (code === '' || code.length > 64) return showCode(deps, res, identity, 400, { goto, message: 'Enter the code.' });
  const held = take(identity);
  if (held === undefined) return showForm(deps, res, identity, 401, { goto, message: 'Your sign-in took too long or was already used. Log in again.' });
  const address = addressOf(req);
  let answer: LoginAnswer;
  try {
    answer = await deps.gateway.loginStep({ user: null, visitor: held.handle, address }, { pending: held.pending, otp: code });
  } catch (error) {
    loginFailed(deps, res, address, error);
    const { status, message } = codeRefusal(error);
    return showForm(deps, res, identity, status, { goto: held.goto ?? goto, message });
  }
  if ('otpRequired' in answer) return showForm(deps, res, identity, 401, { goto: held.goto ?? goto, message: 'Log in again.' });
  complete(deps, req, res, identity, { cookie: held.cookie, handle: held.handle }, answer, held.goto ?? goto);
}

/** The new portal session of a successful login, and the way on. */
function complete(deps: PortalDeps, req: Request, res: Response, identity: Identity, prepared: PreparedSession, answer: Exclude<LoginAnswer, { otpRequired: string }>, goto: string | undefined): void {
  const address = addressOf(req);
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
  audit(deps.log, { event: 'portal_login', outcome: 'success', user: session.name, session: session.handle, level: answer.session.level, peer: address, requestId: res.locals.requestId });
  res.redirect(303, goto ?? `${deps.config.root}/`);
}

function loginFailed(deps: PortalDeps, res: Response, address: string | null, error: unknown): void {
  deps.metrics.logins.inc({ outcome: 'failure' });
  const code = error instanceof SvcClientError ? error.code : 'error';
  audit(deps.log, { event: 'portal_login', outcome: 'failure', reason: code, peer: address, requestId: res.locals.requestId });
}

/**
 * Holds a login between its steps: a visitor's in its sealed cookie, a user's (logging in anew) in
 * its portal session; in the container's own data, which no portlet reads (unlike the session's
 * attributes, which APPLICATION_SCOPE shows every portlet).
 */
function hold(identity: Identity, held: HeldLogin): void {
  if (identity.kind === 'user') identity.session.application.containerData.set(HELD_LOGIN, held);
  else identity.carry.create().containerData.set(HELD_LOGIN, held);
}

/** The held login, removed (single-use), when there is one and it is fresh. */
function take(identity: Identity): HeldLogin | undefined {
  const attributes = identity.kind === 'user' ? identity.session.application.containerData : identity.carry.current()?.containerData;
  const held = attributes?.get(HELD_LOGIN) as HeldLogin | undefined;
  attributes?.delete(HELD_LOGIN);
  return held !== undefined && typeof held.pending === 'string' && held.until > Date.now() ? held : undefined;
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

/** A refused code: the pending is spent, so the person starts again from the password. */
function codeRefusal(error: unknown): { status: number; message: string } {
  if (error instanceof SvcClientError && (error.status === 401 || error.code === 'login_failed')) {
    return { status: 401, message: 'The code is not correct, or it came too late. Log in again with your password and a new code.' };
  }
  return loginRefusal(error);
}

/** GET {root}/step-up?goto=…: a visitor logs in first (and comes back here); a user without a second factor is told why none of this can work. */
export async function stepUpPage(deps: PortalDeps, req: Request, res: Response, identity: Identity): Promise<void> {
  const goto = gotoOf(deps, req.query.goto);
  if (identity.kind !== 'user') return res.redirect(302, `${deps.config.root}/login${goto ? `?goto=${encodeURIComponent(goto)}` : ''}`);
  if ((await hasOwnFactor(deps, req, res, identity)) === false) return showOwnFactorNeeded(deps, res, identity, goto);
  showStepUp(deps, res, identity, 200, { goto });
}

/**
 * Whether the portal user has a confirmed second factor (SPEC 15: a pending one signs nobody in),
 * as svc says (`GET …/subjects/{s}/otp`, one's own: every user may read it); undefined when it
 * could not be read, and the step-up form is shown as before.
 */
async function hasOwnFactor(deps: PortalDeps, req: Request, res: Response, identity: Identity & { kind: 'user' }): Promise<boolean | undefined> {
  const { contextId, uniqueId } = identity.session.principal;
  try {
    const answer = await deps.gateway.request<{ otp?: { state?: unknown } }>(deps.identities.principalOf(identity, addressOf(req)), { method: 'GET', path: apiPath('contexts', contextId, 'subjects', uniqueId, 'otp') });
    return answer.body?.otp?.state === 'confirmed';
  } catch (error) {
    deps.log.warn({ requestId: res.locals.requestId, err: error }, 'the second factor of the step-up\'s user could not be read');
    return undefined;
  }
}

/** The step-up page of a user with no second factor: why it cannot work, and the way to turn one on. */
function showOwnFactorNeeded(deps: PortalDeps, res: Response, identity: Identity & { kind: 'user' }, goto: string | undefined): void {
  res.setHeader('Cache-Control', 'no-store');
  sendLayout(deps, res, 200, identity, 'Your own second factor is needed', ownFactorNeeded({ setup: secondFactorPage(identity, deps.config), back: goto ?? `${deps.config.root}/` }));
}

function showStepUp(deps: PortalDeps, res: Response, identity: Identity & { kind: 'user' }, status: number, options: { goto?: string; message?: string }): void {
  const root = deps.config.root;
  const form = stepUpForm({ action: `${root}/step-up`, csrf: deps.identities.csrfOf(identity), user: identity.session.principal.uniqueId, cancel: options.goto ?? `${root}/`, ...options });
  sendLayout(deps, res, status, identity, 'Confirm it is you', form);
}

/** POST {root}/step-up: the password step, then (SPEC 15) the code step; success replaces this session's core session. */
export async function stepUp(deps: PortalDeps, req: Request, res: Response, identity: Identity): Promise<void> {
  const body = await readBody(req, res, 64 * 1024);
  checkCsrf(deps, req, identity, body);
  const goto = gotoOf(deps, field(body, 'goto'));
  if (identity.kind !== 'user') return res.redirect(303, `${deps.config.root}/login${goto ? `?goto=${encodeURIComponent(goto)}` : ''}`);
  const session = identity.session;
  const address = addressOf(req);
  const principal = { user: session.principal, visitor: session.handle, address };
  const otp = field(body, 'otp');
  let answer: LoginAnswer;
  if (otp !== undefined) {
    const code = otp.trim();
    if (code === '' || code.length > 64) return showCode(deps, res, identity, 400, { goto, message: 'Enter the code.', stepUp: true });
    const held = session.stepUp;
    session.stepUp = undefined;
    if (held === undefined || held.until <= Date.now()) return showStepUp(deps, res, identity, 401, { goto, message: 'Your confirmation took too long or was already used. Start again.' });
    try {
      answer = await deps.gateway.loginStep(principal, { pending: held.pending, otp: code });
    } catch (error) {
      stepUpFailed(deps, res, identity, address, error);
      return showStepUp(deps, res, identity, codeRefusal(error).status, { goto: held.goto ?? goto, message: codeRefusal(error).message.replace('Log in again', 'Start again') });
    }
    if ('otpRequired' in answer) return showStepUp(deps, res, identity, 401, { goto: held.goto ?? goto, message: 'Start again.' });
    return steppedUp(deps, res, identity, answer.session.level, held.goto ?? goto);
  }
  const password = field(body, 'password') ?? '';
  if (!body.form || password === '' || password.length > 1024) return showStepUp(deps, res, identity, 400, { goto, message: 'Enter your password.' });
  try {
    answer = await deps.gateway.loginStep(principal, { user: session.principal.uniqueId, password });
  } catch (error) {
    stepUpFailed(deps, res, identity, address, error);
    const refusal = loginRefusal(error);
    return showStepUp(deps, res, identity, refusal.status, { goto, message: refusal.status === 401 ? 'The password is not correct.' : refusal.message });
  }
  if ('otpRequired' in answer) {
    session.stepUp = { pending: answer.otpRequired, goto, until: Date.now() + PENDING_MS };
    return showCode(deps, res, identity, 200, { goto, stepUp: true });
  }
  // No second factor (it went since the form was shown): the password alone gives its level (2),
  // which is what this user can have, and which lifts nothing that asked for a step-up: going back
  // would only lead here again, so the page says why.
  steppedUp(deps, res, identity, answer.session.level, goto);
}

/** The gateway holds the new core session for this portal session; its cookie value changes (a privilege change), its renders are made anew. */
function steppedUp(deps: PortalDeps, res: Response, identity: Identity & { kind: 'user' }, level: number, goto: string | undefined): void {
  const cookie = deps.sessions.rotate(identity.cookie);
  if (cookie !== undefined) deps.identities.setSessionCookie(res, cookie);
  dropRenderCache(identity.session.application);
  audit(deps.log, { event: 'portal_step_up', outcome: 'success', user: identity.session.name, session: identity.session.handle, level, requestId: res.locals.requestId });
  if (level < 3) return showOwnFactorNeeded(deps, res, identity, goto);
  res.redirect(303, goto ?? `${deps.config.root}/`);
}

function stepUpFailed(deps: PortalDeps, res: Response, identity: Identity & { kind: 'user' }, address: string | null, error: unknown): void {
  const code = error instanceof SvcClientError ? error.code : 'error';
  audit(deps.log, { event: 'portal_step_up', outcome: 'failure', reason: code, user: identity.session.name, session: identity.session.handle, peer: address, requestId: res.locals.requestId });
}

export function logoutPage(deps: PortalDeps, _req: Request, res: Response, identity: Identity): void {
  const body = html`<form method="post" action="${deps.config.root}/logout"><input type="hidden" name="_csrf" value="${deps.identities.csrfOf(identity)}"><button class="portlet-form-button" type="submit">Log out</button></form>`;
  sendLayout(deps, res, 200, identity, 'Log out', body);
}

/** Ends the portal session and the user's core session at the gateway; the visitor cookie is cleared too (the browser's next request is a new visitor's). */
export async function logout(deps: PortalDeps, req: Request, res: Response, identity: Identity): Promise<void> {
  const body = await readBody(req, res, 64 * 1024);
  checkCsrf(deps, req, identity, body);
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

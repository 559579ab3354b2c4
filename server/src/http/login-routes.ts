import { Router, type Request, type Response } from 'express';
import { InvalidClient, InvalidRequest, LoginFailed, MalformedBody } from '../../../common/src/errors';
import { MAX_SEALED_LENGTH } from '../../../common/src/clientcred/format';
import type { WireDocument } from '../../../common/src/wire/xml';
import { partiesOf } from '../audit';
import type { Core } from '../core';
import { changeOwnPassword, liftLockout } from '../login/account';
import { checkedGoto } from '../login/goto';
import { loginServiceOf } from '../login/login-service';
import { sessionView } from '../sessions/session';
import { wantsPage } from './authentication-filter';
import { documentBody, formBody, rawBody } from './body';
import { presentedCertificate } from './client-certificate';
import { setSessionCookie } from './cookies';
import { sendPage } from './pages/html';
import { loginErrorPage, loginPage, logoutPage } from './pages/login-pages';
import { sendDocument } from './respond';
import { checkSameOrigin } from './same-origin';

/** A login form is a few short fields; anything bigger is not one. */
const LOGIN_BODY_LIMIT = 64 * 1024;
/** The web client named by the login page, when the configuration has it. */
const WEB_CLIENT = 'svc-web';

/** The POST's parameters: once each, bounded, and never in the URL (they would be logged). */
function loginParams(core: Core, req: Request): Record<string, string> {
  const names = core.config.settings.credentialNames;
  const secretNames = [names.clientcred, names.user, names.password, names.token];
  const query = req.query as Record<string, unknown>;
  const inUrl = secretNames.filter((name) => Object.hasOwn(query, name));
  if (inUrl.length) throw new InvalidRequest('credentials must be sent in the body, never in the URL', { errors: inUrl.map((path) => ({ path, message: 'not allowed in the URL' })) });
  const params = formBody(req);
  const big = Object.entries(params).filter(([, value]) => value.length > MAX_SEALED_LENGTH);
  if (big.length) throw new InvalidRequest('a parameter is too long', { errors: big.map(([path]) => ({ path, message: `longer than ${MAX_SEALED_LENGTH} characters` })) });
  return params;
}

/**
 * `goto` is a request parameter in the servlet sense (SPEC section 4): from the query string or the
 * form body. Both at once must agree; two different targets are refused rather than one guessed at.
 */
function gotoParam(req: Request, params: Record<string, string>): string | undefined {
  const query = req.query as Record<string, unknown>;
  const inQuery = query.goto;
  if (inQuery !== undefined && typeof inQuery !== 'string') throw new InvalidRequest('goto must be given once');
  if (inQuery !== undefined && params.goto !== undefined && inQuery !== params.goto) {
    throw new InvalidRequest('goto is given in the query and in the body with different values', { errors: [{ path: 'goto', message: 'given twice' }] });
  }
  return inQuery ?? params.goto;
}

const isFormPost = (req: Request) => (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');

/** The cookie of this answer replaces any the filter set for the request's throwaway session. */
function replaceCookie(core: Core, req: Request, res: Response, value: string | undefined): void {
  res.removeHeader('Set-Cookie');
  setSessionCookie(core, req, res, value);
}

async function postLogin(core: Core, req: Request, res: Response): Promise<void> {
  checkSameOrigin(core, req);
  const params = loginParams(core, req);
  const goto = gotoParam(req, params);
  const root = core.config.server.contextRoot;
  const browser = isFormPost(req) && wantsPage(req);
  const header = req.headers[core.config.settings.credentialNames.httpHeader.toLowerCase()];
  let issued;
  try {
    issued = await loginServiceOf(core).login({
      params,
      header: typeof header === 'string' ? header : undefined,
      peer: req.svc.peer,
      presentedCookie: req.svc.cookieValue,
      certificate: presentedCertificate(core, req),
    });
  } catch (error) {
    if (browser && (error instanceof LoginFailed || error instanceof InvalidClient)) return res.redirect(302, `${root}/anon/login-error`);
    throw error;
  }
  replaceCookie(core, req, res, issued.cookieValue);
  req.svc.session = issued.session;
  req.svc.cookieValue = issued.cookieValue;
  if (goto !== undefined || wantsPage(req)) {
    return res.redirect(302, checkedGoto(goto, root, core.config.server.allowedRedirectOrigins) ?? `${root}/`);
  }
  sendDocument(req, res, 200, { session: sessionView(issued.session) } as unknown as WireDocument);
}

async function postLogout(core: Core, req: Request, res: Response): Promise<void> {
  checkSameOrigin(core, req);
  const params = loginParams(core, req);
  const old = req.svc.session;
  const cookie = req.svc.cookieValue;
  const ended = cookie !== undefined && (await core.sessions.end(cookie));
  core.audit.record({ ...partiesOf(old, req.svc.peer), event: 'logout', outcome: 'success', reason: ended ? 'ended' : 'stateless' });
  // The seed's 3.2: an anonymous session follows when the global default client has one.
  const anonymous = core.client(core.config.settings.defaultClient)?.authenticators.map((id) => core.authenticator(id)).find((a) => a?.kind === 'Anonymous');
  const next = anonymous ? await core.sessions.create({ type: anonymous.sessionType, clientId: '', principal: null, level: 0, authenticator: anonymous.config.id }) : undefined;
  replaceCookie(core, req, res, next?.cookieValue);
  const root = core.config.server.contextRoot;
  const goto = checkedGoto(gotoParam(req, params), root, core.config.server.allowedRedirectOrigins);
  if (goto !== undefined || wantsPage(req)) return res.redirect(302, goto ?? `${root}/login`);
  res.status(204).end();
}

function getLogin(core: Core, req: Request, res: Response): void {
  const names = core.config.settings.credentialNames;
  const root = core.config.server.contextRoot;
  const goto = typeof req.query.goto === 'string' ? checkedGoto(req.query.goto, root, core.config.server.allowedRedirectOrigins) : undefined;
  const page = loginPage({
    action: `${root}/login`,
    names: { user: names.user, password: names.password, client: names.client },
    clientId: core.client(WEB_CLIENT) && !core.client(WEB_CLIENT)?.secret ? WEB_CLIENT : undefined,
    goto,
    register: core.config.contexts.some((c) => c.registration.enabled) ? `${root}/anon/register` : undefined,
    forgot: core.config.contexts.some((c) => c.forgottenPassword.enabled) ? `${root}/anon/forgot` : undefined,
  });
  sendPage(res, 200, 'Log in', page);
}

/**
 * Login, logout and the login-error page (SPEC section 4), mounted right after the authentication
 * filter, which has already given the request its session (or a throwaway anonymous one).
 */
export function loginRoutes(core: Core): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const body = rawBody(LOGIN_BODY_LIMIT);
  const root = () => core.config.server.contextRoot;
  router.get('/login', (req, res) => getLogin(core, req, res));
  router.post('/login', body, (req, res) => postLogin(core, req, res));
  router.get('/logout', (req, res) => {
    const goto = typeof req.query.goto === 'string' ? checkedGoto(req.query.goto, root(), core.config.server.allowedRedirectOrigins) : undefined;
    sendPage(res, 200, 'Log out', logoutPage(`${root()}/logout`, goto));
  });
  router.post('/logout', body, (req, res) => postLogout(core, req, res));
  router.get('/anon/login-error', (_req, res) => {
    // Every 401 names a scheme (RFC 9110), the page as much as the JSON answer.
    res.setHeader('WWW-Authenticate', `SvcSession realm="svc", error="login_failed", login="${root()}/login"`);
    sendPage(res, 401, 'Login failed', loginErrorPage(`${root()}/login`));
  });
  return router;
}

/** PUT .../subjects/{s}/password with `{"oldPassword","newPassword"}` → 204. */
export async function passwordHandler(core: Core, req: Request, res: Response, contextId: string, subjectId: string): Promise<void> {
  const doc = documentBody(req);
  const keys = doc ? Object.keys(doc) : [];
  const oldPassword = doc?.oldPassword;
  const newPassword = doc?.newPassword;
  if (typeof oldPassword !== 'string' || typeof newPassword !== 'string' || keys.length !== 2) {
    throw new MalformedBody('the body must be {"oldPassword": "...", "newPassword": "..."}');
  }
  await changeOwnPassword(core, { contextId, uniqueId: subjectId, oldPassword, newPassword, session: req.svc.session, cookieValue: req.svc.cookieValue, peer: req.svc.peer });
  res.status(204).end();
}

/** DELETE .../subjects/{s}/lockout → 204. */
export async function lockoutHandler(core: Core, req: Request, res: Response, contextId: string, subjectId: string): Promise<void> {
  await liftLockout(core, contextId, subjectId, req.svc.session, req.svc.peer);
  res.status(204).end();
}

import type { Request } from 'express';
import { InvalidClient, InvalidRequest, LoginFailed, OtpRequired } from '../../../../common/src/errors';
import { PENDING_TTL_SECONDS } from '../../otp/pending-login';
import { MAX_SEALED_LENGTH } from '../../../../common/src/clientcred/format';
import { partiesOf } from '../../audit';
import { checkedGoto } from '../../login/goto';
import { OTP_PARAM, PENDING_PARAM } from '../../login/login-service';
import { sessionView } from '../../sessions/session';
import { formBody, readBody } from '../body';
import { OTP_PENDING_COOKIE, readCookie, setOtpPendingCookie, setSessionCookie } from '../cookies';
import { step, type Exchange, type Step } from '../exchange';
import { sendPage } from '../pages/html';
import { loginErrorPage, loginPage, logoutPage, otpPage } from '../pages/login-pages';
import { sendDocument, wantsPage } from '../respond';
import { sameOrigin } from '../same-origin';
import type { HttpServices } from '../services';

/** A login form is a few short fields; anything bigger is not one. */
const LOGIN_BODY_LIMIT = 64 * 1024;
/** The web client named by the login page, when the configuration has it. */
const WEB_CLIENT = 'svc-web';

/** The POST's parameters: once each, bounded, and never in the URL (they would be logged). */
function loginParams(x: Exchange): Record<string, string> {
  const names = x.config.settings.credentialNames;
  const secretNames = [names.clientcred, names.user, names.password, names.token, OTP_PARAM, PENDING_PARAM];
  const query = x.req.query as Record<string, unknown>;
  const inUrl = secretNames.filter((name) => Object.hasOwn(query, name));
  if (inUrl.length) throw new InvalidRequest('credentials must be sent in the body, never in the URL', { errors: inUrl.map((path) => ({ path, message: 'not allowed in the URL' })) });
  const params = formBody(x.req);
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

/** A `goto` of the query alone (the pages' GET), checked against our own root and the allowed origins. */
function queryGoto(x: Exchange): string | undefined {
  const goto = x.req.query.goto;
  return typeof goto === 'string' ? checkedGoto(goto, x.config.server.contextRoot, x.config.server.allowedRedirectOrigins) : undefined;
}

const isFormPost = (req: Request) => (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');

/** The cookie of this answer replaces any the filter set for the request's throwaway session. */
function replaceCookie(x: Exchange, value: string | undefined): void {
  x.res.removeHeader('Set-Cookie');
  setSessionCookie(x, value);
}

/** POST {base}/login (SPEC section 4): a new session and its cookie; a browser's form is redirected. */
const login = (s: Pick<HttpServices, 'logins' | 'presentedCertificate'>): Step =>
  step('login', async (x) => {
    const { req, res, config, state } = x;
    const params = loginParams(x);
    const goto = gotoParam(req, params);
    const root = config.server.contextRoot;
    const browser = isFormPost(req) && wantsPage(req);
    const header = req.headers[config.settings.credentialNames.httpHeader.toLowerCase()];
    // A browser's code page (SPEC 15) posts the code alone: its pending is in its own cookie.
    const heldPending = browser && params[OTP_PARAM] !== undefined && params[PENDING_PARAM] === undefined ? readCookie(req, OTP_PENDING_COOKIE) : undefined;
    if (heldPending) setOtpPendingCookie(x, undefined, 0);
    let issued;
    try {
      issued = await s.logins.login({
        params: heldPending ? { ...params, [PENDING_PARAM]: heldPending } : params,
        header: typeof header === 'string' ? header : undefined,
        peer: state.peer,
        presentedCookie: state.cookieValue,
        certificate: s.presentedCertificate(x),
      });
    } catch (error) {
      if (browser && error instanceof OtpRequired) return showOtpPage(x, String(error.extensions.pending), params, goto);
      if (browser && (error instanceof LoginFailed || error instanceof InvalidClient)) return res.redirect(302, `${root}/anon/login-error`);
      throw error;
    }
    replaceCookie(x, issued.cookieValue);
    if (heldPending) setOtpPendingCookie(x, undefined, 0);
    state.session = issued.session;
    state.cookieValue = issued.cookieValue;
    if (goto !== undefined || wantsPage(req)) return res.redirect(302, checkedGoto(goto, root, config.server.allowedRedirectOrigins) ?? `${root}/`);
    sendDocument(req, res, 200, { session: sessionView(issued.session) });
  });

/** The code page after a browser's right password: its pending held in a cookie of its own, never a session. */
function showOtpPage(x: Exchange, pending: string, params: Record<string, string>, goto: string | undefined): void {
  const names = x.config.settings.credentialNames;
  const root = x.config.server.contextRoot;
  setOtpPendingCookie(x, pending, PENDING_TTL_SECONDS);
  x.res.setHeader('Cache-Control', 'no-store');
  const page = otpPage({ action: `${root}/login`, clientName: names.client, clientId: params[names.client], goto: checkedGoto(goto, root, x.config.server.allowedRedirectOrigins), otp: OTP_PARAM });
  sendPage(x.res, 200, 'Your code', page);
}

/** POST {base}/logout: the session ends; the seed's 3.2: an anonymous session follows when the default client has one. */
const logout = (s: Pick<HttpServices, 'sessions' | 'audit' | 'client' | 'authenticator'>): Step =>
  step('logout', async (x) => {
    const { req, res, config, state } = x;
    const params = loginParams(x);
    const ended = state.cookieValue !== undefined && (await s.sessions.end(state.cookieValue));
    s.audit.record({ ...partiesOf(state.session, state.peer), event: 'logout', outcome: 'success', reason: ended ? 'ended' : 'stateless' });
    const anonymous = s.client(config.settings.defaultClient)?.authenticators.map((id) => s.authenticator(id)).find((a) => a?.kind === 'Anonymous');
    const next = anonymous ? await s.sessions.create({ type: anonymous.sessionType, clientId: '', principal: null, level: 0, authenticator: anonymous.config.id }) : undefined;
    replaceCookie(x, next?.cookieValue);
    const root = config.server.contextRoot;
    const goto = checkedGoto(gotoParam(req, params), root, config.server.allowedRedirectOrigins);
    if (goto !== undefined || wantsPage(req)) return res.redirect(302, goto ?? `${root}/login`);
    res.status(204).end();
  });

const showLoginPage = (s: Pick<HttpServices, 'client'>): Step =>
  step('loginPage', (x) => {
    const names = x.config.settings.credentialNames;
    const root = x.config.server.contextRoot;
    const web = s.client(WEB_CLIENT);
    const page = loginPage({
      action: `${root}/login`,
      names: { user: names.user, password: names.password, client: names.client },
      clientId: web && !web.secret ? WEB_CLIENT : undefined,
      goto: queryGoto(x),
      register: x.config.contexts.some((c) => c.registration.enabled) ? `${root}/anon/register` : undefined,
      forgot: x.config.contexts.some((c) => c.forgottenPassword.enabled) ? `${root}/anon/forgot` : undefined,
    });
    sendPage(x.res, 200, 'Log in', page);
  });

const showLogoutPage = step('logoutPage', (x) => sendPage(x.res, 200, 'Log out', logoutPage(`${x.config.server.contextRoot}/logout`, queryGoto(x))));

const showLoginError = step('loginErrorPage', ({ res, config }) => {
  const root = config.server.contextRoot;
  // Every 401 names a scheme (RFC 9110), the page as much as the JSON answer.
  res.setHeader('WWW-Authenticate', `SvcSession realm="svc", error="login_failed", login="${root}/login"`);
  sendPage(res, 401, 'Login failed', loginErrorPage(`${root}/login`));
});

/** Login, logout and the login-error page (SPEC section 4), by method; the route table puts authentication before them. */
export function loginRoutes(s: Pick<HttpServices, 'logins' | 'presentedCertificate' | 'sessions' | 'audit' | 'client' | 'authenticator'>) {
  const body = readBody(LOGIN_BODY_LIMIT);
  return {
    login: { GET: [showLoginPage(s)], POST: [body, sameOrigin, login(s)] },
    logout: { GET: [showLogoutPage], POST: [body, sameOrigin, logout(s)] },
    loginError: { GET: [showLoginError] },
  };
}

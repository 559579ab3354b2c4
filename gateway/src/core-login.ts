/**
 * How the gateway logs in to a core and out again, behind the thin seam `CoreLogin`. Both logins are
 * one POST {base}/login built by the client library (`loginForm`, sealed with its `ClientSealer` as
 * SPEC section 5 says): the client principal of a portal user (`contextId/uniqueId`, SPEC section 9),
 * and a person's own name and password for `POST {gw}/api/login`. Each carries the visitor's address
 * as a signed `X-Svc-Forwarded-For` (visitor-address.ts), so the core's lockout and throttles count
 * the visitor, never the gateway.
 * Visitors need no login at all: their ANON session is the one the core issues (core-sessions.ts).
 * The gateway keeps only the session cookie. Logout is one POST {base}/logout.
 */
import { request, type Dispatcher } from 'undici';
import { checkCredentials, loginForm, type Credentials, type SecondStep } from '../../client/src/login';
import { ClientSealer } from '../../client/src/clientcred/sealer';
import { BadGateway, LoginFailed, SvcError } from '../../common/src/errors';
import { formatPrincipalName, principalNameOf, type PrincipalName } from '../../common/src/principal-name';
import { isProblemCode, type ProblemCode } from '../../common/src/wire/problem-codes';
import { readSessionView, type SessionView } from '../../common/src/wire/session-view';
import { applySetCookie, cookieValue } from './cookie-jar';
import { toGatewayError } from './core-errors';
import { VISITOR_ADDRESS_HEADER, visitorAddressSigner, type SignVisitorAddress } from './visitor-address';

export interface PasswordLogin {
  /** The Cookie header value of the new core session. */
  cookie: string;
  session: SessionView;
  /** The portal user the session is for. */
  user: PrincipalName;
  /** The subject's `roles`. */
  roles: string[];
}

export interface CoreLogin {
  /** Logs `user` in on the core at `base` as the gateway's client principal; resolves the Cookie header value. */
  principal(base: string, user: PrincipalName, address: string | null): Promise<string>;
  /**
   * A person's own login (UserPass, sealed); a refusal by the core is thrown as the core said it, and
   * a subject with a second factor's `otp_required` as CoreOtpRequired with the core's pending token.
   */
  password(base: string, user: string, password: string, address: string | null): Promise<PasswordLogin>;
  /** The second step of such a login (SPEC 15): the core's pending token and the code, sealed like a password. */
  secondStep(base: string, pending: string, otp: string, address: string | null): Promise<PasswordLogin>;
  /** Ends the core session the Cookie header value names (best effort). */
  logout(base: string, cookie: string): Promise<void>;
}

/** The core answered `otp_required` (SPEC 15): the right password of a subject with a second factor. */
export class CoreOtpRequired extends Error {
  /** The core that answered (set by whoever picked it). */
  core = '';
  constructor(readonly pending: string) {
    super('the core asks for a second factor');
  }
}

export interface SealedCoreLoginOptions {
  clientId: string;
  secret: string;
  /** The gateway's keep-alive agent to the cores (its timeouts are the core timeout). */
  dispatcher: Dispatcher;
  /** `http.session.cookie.uniqueid` of the cores; default SVCSESSIONID. */
  cookieName?: string;
}

/** Refusals of a person's login that are the person's to see: wrong input, failed login, throttled, busy. */
const PASSED_REFUSALS: ReadonlySet<string> = new Set<ProblemCode>(['invalid_request', 'login_failed', 'too_many_requests', 'service_unavailable']);
/** Headers of such a refusal that keep their meaning at the gateway. */
const REFUSAL_HEADERS = ['www-authenticate', 'retry-after'];
const JSON_ACCEPT = 'application/json';

interface CoreAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export class SealedCoreLogin implements CoreLogin {
  readonly #options: SealedCoreLoginOptions;
  readonly #cookieName: string;
  /** PBKDF2 runs once per gateway, not per login. */
  readonly #sealer: ClientSealer;
  readonly #signAddress: SignVisitorAddress;

  constructor(options: SealedCoreLoginOptions) {
    this.#options = options;
    this.#cookieName = options.cookieName ?? 'SVCSESSIONID';
    this.#sealer = new ClientSealer(options.clientId, options.secret);
    this.#signAddress = visitorAddressSigner(options.clientId, options.secret);
  }

  async principal(base: string, user: PrincipalName, address: string | null): Promise<string> {
    const answer = await this.#login(base, { kind: 'principal', user: formatPrincipalName(user) }, address);
    if (answer.status === 200) return this.#cookieOf(answer);
    // The subject is unknown, disabled, deleted or locked: the portal must log that user out.
    if (problemOf(answer).code === 'login_failed') throw new LoginFailed('the asserted user cannot be logged in to svc');
    throw refusedLogin(answer);
  }

  async password(base: string, user: string, password: string, address: string | null): Promise<PasswordLogin> {
    return this.#personal(base, await this.#login(base, { kind: 'password', user, password }, address), address);
  }

  async secondStep(base: string, pending: string, otp: string, address: string | null): Promise<PasswordLogin> {
    return this.#personal(base, await this.#login(base, { kind: 'password', user: '-', password: '-' }, address, { pending, otp }), address);
  }

  /** A person's login answer: the session and roles, or the refusal as the core said it. */
  async #personal(base: string, answer: CoreAnswer, address: string | null): Promise<PasswordLogin> {
    const { code, pending } = problemOf(answer);
    if (answer.status === 401 && code === 'otp_required' && typeof pending === 'string') throw new CoreOtpRequired(pending);
    if (answer.status !== 200) throw passedRefusal(answer);
    const cookie = this.#cookieOf(answer);
    const session = sessionOf(answer.body);
    // A subject of a context, each half in its syntax (a SYSTEM login names no context).
    const principal = principalNameOf(session?.principal);
    if (session === undefined || principal === undefined) {
      // Not a portal user (a SYSTEM login, say): the session is of no use to the portal.
      await this.logout(base, cookie).catch(() => undefined);
      throw new BadGateway('the core\'s login did not name a subject of a context');
    }
    return { cookie, session, user: principal, roles: await this.#roles(base, cookie, principal, address) };
  }

  async logout(base: string, cookie: string): Promise<void> {
    try {
      const answer = await request(`${base}/logout`, {
        method: 'POST',
        headers: { cookie, accept: JSON_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
        dispatcher: this.#options.dispatcher,
      });
      await answer.body.dump();
    } catch (error) {
      throw toGatewayError(error);
    }
  }

  async #login(base: string, credentials: Credentials, address: string | null, second?: SecondStep): Promise<CoreAnswer> {
    const config = { baseUrl: base, clientId: this.#options.clientId, secret: this.#options.secret };
    checkCredentials(credentials, config);
    const body = new URLSearchParams(loginForm(config, this.#sealer, credentials, second)).toString();
    return this.#send(`${base}/login`, 'POST', { 'content-type': 'application/x-www-form-urlencoded' }, address, body);
  }

  /** The subject's roles, read with the new session itself (a user may read its own subject). */
  async #roles(base: string, cookie: string, user: PrincipalName, address: string | null): Promise<string[]> {
    const path = `${base}/resources/contexts/${encodeURIComponent(user.contextId)}/subjects/${encodeURIComponent(user.uniqueId)}`;
    const answer = await this.#send(path, 'GET', { cookie }, address);
    // A policy that keeps users from reading themselves leaves them without portal roles, not without a login.
    if (answer.headers['x-svc-decision'] === 'DENY') return [];
    const roles = answer.status === 200 ? rolesOf(answer.body) : undefined;
    if (roles === undefined) throw new BadGateway('the core did not answer the subject of the login', { extensions: { coreStatus: answer.status } });
    return roles;
  }

  async #send(url: string, method: 'GET' | 'POST', headers: Record<string, string>, address: string | null, body?: string): Promise<CoreAnswer> {
    // Parsed once: the path signed is the path sent.
    const target = new URL(url);
    const vouched = address === null ? {} : { [VISITOR_ADDRESS_HEADER]: this.#signAddress(address, method, target.pathname + target.search) };
    try {
      const answer = await request(target, {
        method,
        headers: { accept: JSON_ACCEPT, ...headers, ...vouched },
        body,
        dispatcher: this.#options.dispatcher,
      });
      const text = await answer.body.text();
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: answer.statusCode, headers: answer.headers, body: parsed };
    } catch (error) {
      throw toGatewayError(error);
    }
  }

  #cookieOf(answer: CoreAnswer): string {
    const jar = applySetCookie('', answer.headers['set-cookie']);
    if (cookieValue(jar, this.#cookieName) === undefined) throw new BadGateway('the core\'s login set no session cookie');
    return jar;
  }
}

function problemOf(answer: CoreAnswer): { code?: unknown; title?: unknown; detail?: unknown; pending?: unknown } {
  return answer.body && typeof answer.body === 'object' ? (answer.body as Record<string, unknown>) : {};
}

/** The core refused the gateway itself (its secret, its client): a 502 for the portal, which can do nothing about it. */
function refusedLogin(answer: CoreAnswer): SvcError {
  const { code } = problemOf(answer);
  return new BadGateway('the core refused the gateway\'s login', { extensions: { coreStatus: answer.status, coreCode: typeof code === 'string' ? code : null } });
}

/** A person's failed login, as the core said it (`login_failed`, a 429 with its Retry-After, …). */
function passedRefusal(answer: CoreAnswer): SvcError {
  const { code, title, detail } = problemOf(answer);
  if (!isProblemCode(code) || !PASSED_REFUSALS.has(code)) return refusedLogin(answer);
  const headers: Record<string, string> = {};
  for (const name of REFUSAL_HEADERS) {
    const value = answer.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return new SvcError(answer.status, code, typeof title === 'string' ? title : code, { detail: typeof detail === 'string' ? detail : undefined, headers });
}

function sessionOf(body: unknown): SessionView | undefined {
  return readSessionView(body && typeof body === 'object' ? (body as { session?: unknown }).session : undefined);
}

/** `subject.attributes.roles` as a list (absent: none). */
function rolesOf(body: unknown): string[] | undefined {
  const subject = body && typeof body === 'object' ? (body as { subject?: { attributes?: Record<string, unknown> } }).subject : undefined;
  if (!subject?.attributes) return undefined;
  const roles = subject.attributes.roles;
  if (roles === undefined) return [];
  const list = Array.isArray(roles) ? roles : [roles];
  return list.filter((role): role is string => typeof role === 'string');
}

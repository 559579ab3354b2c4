/**
 * One portal request through the gateway to a core, issued with undici (so that a retry is simply a
 * second request with the buffered body): pick a healthy core, take the principal's core session
 * there, send; when the core says the session is dead (`authentication_required`, `session_expired`),
 * log in again once (a visitor: start again without a cookie) and retry. When it says the session was
 * revoked (`session_revoked`: the user's password changed, or the user was disabled or deleted), never:
 * the session is replaced by a revocation mark and the core's 401 goes back to the portal, which ends
 * that portal session (SPEC section 9). A core that cannot be reached is marked failed and, when that
 * is safe, the request goes to the next one. A portal user's core session is held by the gateway
 * (core-sessions.ts); a visitor's is not held at all: it comes with the request, sealed in
 * `X-Svc-Visitor-State`, and a new one goes back the same way (visitor-state.ts).
 *
 * Forwarding is an allow-list both ways (SPEC section 9): the portal's request keeps only the
 * headers below, plus the gateway's own cookie and the visitor's address as a signed
 * `X-Svc-Forwarded-For` (visitor-address.ts); the
 * core's answer keeps only the headers below, its `Location` rewritten to the gateway's path, and
 * never a `Set-Cookie`. Anything new on either side stays out until it is listed here.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { Dispatcher } from 'undici';
import type { VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import { BadGateway } from '../../common/src/errors';
import { applySetCookie, cookieValue } from './cookie-jar';
import { CoreUnreachable, toGatewayError } from './core-errors';
import type { CorePool, CoreTarget } from './core-pool';
import { freshVisitor, type CoreSession, type CoreSessions } from './core-sessions';
import type { GatewayMetrics } from './observability';
import { VISITOR_ADDRESS_HEADER, type SignVisitorAddress } from './visitor-address';
import { VISITOR_STATE_HEADER, type VisitorStateSeals } from './visitor-state';

export interface ProxyDeps {
  /** The gateway's root, e.g. `/gw`: `Location` answers are rewritten under `{root}/api`. */
  root: string;
  /** `http.session.cookie.uniqueid` of the cores. */
  cookieName: string;
  pool: CorePool;
  sessions: CoreSessions;
  /** Opens and seals the visitor state that visitors' requests carry. */
  visitorStates: VisitorStateSeals;
  dispatcher: Dispatcher;
  timeoutMs: number;
  metrics: GatewayMetrics;
  /** Signs the visitor's address for the core (X-Svc-Forwarded-For). */
  signAddress: SignVisitorAddress;
}

export interface Outbound {
  method: string;
  /** Path under the core's `{base}`, e.g. `/resources/session`. */
  path: string;
  /** Raw query without `?`, already stripped of credential parameters. */
  query: string;
  headers: IncomingHttpHeaders;
  body: Buffer | undefined;
}

/** The portal's request headers that reach the core (the gateway adds its Cookie and X-Svc-Forwarded-For). */
const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'content-type', 'if-match', 'if-none-match', 'x-operation', 'x-request-id', 'user-agent'];
/** The core's answer headers that reach the portal (Location rewritten; never Set-Cookie); Content-Disposition names SEARCH's CSV file. */
const RETURNED_RESPONSE_HEADERS = ['content-type', 'content-length', 'content-disposition', 'etag', 'allow', 'www-authenticate', 'x-svc-decision', 'x-request-id', 'cache-control'];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const DEAD_SESSION_CODES = new Set(['authentication_required', 'session_expired']);
/** Refusals are small problem documents; anything larger is not read to look for a code. */
const MAX_REFUSAL_BYTES = 64 * 1024;
/** Answers up to this size are read whole and written at once; larger ones are streamed. */
const MAX_BUFFERED_ANSWER_BYTES = 256 * 1024;

export async function proxy(deps: ProxyDeps, principal: VerifiedPrincipal, outbound: Outbound, res: Response): Promise<void> {
  const tried = new Set<string>();
  for (;;) {
    const core = deps.pool.pick(tried);
    try {
      return await viaCore(deps, core, principal, outbound, res);
    } catch (caught) {
      const error = toGatewayError(caught);
      if (!(error instanceof CoreUnreachable) || res.headersSent) throw error;
      deps.pool.markFailed(core);
      tried.add(core);
      const resendable = error.notSent || SAFE_METHODS.has(outbound.method);
      if (!resendable || deps.pool.healthy.every((c) => tried.has(c))) throw error;
    }
  }
}

async function viaCore(deps: ProxyDeps, core: string, principal: VerifiedPrincipal, outbound: Outbound, res: Response): Promise<void> {
  const held = principal.user === null ? new CarriedVisitorSession(deps, principal, outbound.headers) : new HeldUserSession(deps.sessions, principal);
  let session = await held.get(core);
  let answer = await send(deps, session, principal, outbound);
  let verdict = await inspect(deps, answer, session, held, outbound.method);
  if (verdict.renew) {
    deps.metrics.renewals.inc();
    if (verdict.body === undefined) await answer.body.dump();
    session = await held.renew(session);
    answer = await send(deps, session, principal, outbound);
    verdict = await inspect(deps, answer, session, held, outbound.method);
    if (verdict.renew) await held.drop(session);
  }
  if (verdict.revoked && principal.user !== null) await deps.sessions.revoke(session, principal);
  res.status(answer.statusCode);
  for (const name of RETURNED_RESPONSE_HEADERS) {
    const value = answer.headers[name];
    if (value !== undefined) res.setHeader(name, value);
  }
  const location = gatewayLocation(deps.root, deps.pool.target(session.core), answer.headers.location);
  if (location !== undefined) res.setHeader('location', location);
  if (held instanceof CarriedVisitorSession) {
    const state = held.newState();
    if (state !== undefined) res.setHeader(VISITOR_STATE_HEADER, state);
  }
  if (verdict.body !== undefined) {
    res.end(verdict.body);
    return;
  }
  // The core's answers are nearly all small documents with a length: read whole and written in one
  // write, they skip a stream pipeline's ticks, which cost the gateway more than its own work.
  const length = Number(answer.headers['content-length']);
  if (Number.isSafeInteger(length) && length <= MAX_BUFFERED_ANSWER_BYTES) {
    res.end(Buffer.from(await answer.body.arrayBuffer()));
    return;
  }
  // A portal that hangs up mid-answer is not a failing core: without this, the aborted pipe would
  // read as "core unreachable" and take a healthy core out of the pool until its next probe.
  let portalHungUp = false;
  const onClose = () => {
    if (!res.writableFinished) portalHungUp = true;
  };
  res.once('close', onClose);
  try {
    await pipeline(answer.body, res);
  } catch (error) {
    if (portalHungUp || res.destroyed) return;
    throw error;
  } finally {
    res.off('close', onClose);
  }
}

/**
 * The core's `Location` as the portal must follow it: `{base}/resources/X` becomes `{root}/api/X`
 * and `{base}/access/v1/X` becomes `{root}/api/access/v1/X`. Anything else (another origin, a page
 * of the core) has no gateway path and is not passed.
 */
function gatewayLocation(root: string, { origin, prefix }: CoreTarget, location: string | string[] | undefined): string | undefined {
  if (typeof location !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(location, `${origin}${prefix}/`);
  } catch {
    return undefined;
  }
  if (url.origin !== origin || !url.pathname.startsWith(`${prefix}/`)) return undefined;
  const rest = url.pathname.slice(prefix.length);
  const api = rest.startsWith('/resources/') ? rest.slice('/resources'.length) : rest.startsWith('/access/v1/') ? rest : undefined;
  return api === undefined ? undefined : `${root}/api${api}${url.search}`;
}

async function send(deps: ProxyDeps, session: CoreSession, principal: VerifiedPrincipal, outbound: Outbound): Promise<Dispatcher.ResponseData> {
  const { origin, prefix } = deps.pool.target(session.core);
  const headers: Record<string, string | string[]> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = outbound.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  if (session.cookie !== '') headers.cookie = session.cookie;
  const path = prefix + outbound.path + (outbound.query ? `?${outbound.query}` : '');
  // The visitor's address as the portal saw it, signed for this request (the core trusts the key, not our address).
  if (principal.address !== null) headers[VISITOR_ADDRESS_HEADER] = deps.signAddress(principal.address, outbound.method, path);
  try {
    return await deps.dispatcher.request({
      origin,
      path,
      method: outbound.method as Dispatcher.HttpMethod,
      headers,
      body: outbound.body,
      headersTimeout: deps.timeoutMs,
      bodyTimeout: deps.timeoutMs,
    });
  } catch (error) {
    throw toGatewayError(error);
  }
}

/** Where one request's core session comes from, and where what the core changes goes. */
interface HeldSession {
  get(core: string): Promise<CoreSession>;
  renew(stale: CoreSession): Promise<CoreSession>;
  drop(stale: CoreSession): Promise<void>;
  adopt(previous: CoreSession, cookie: string): Promise<void>;
}

/** A portal user's core session, held by the gateway for the principal (one object a request, no closures). */
class HeldUserSession implements HeldSession {
  constructor(
    private readonly sessions: CoreSessions,
    private readonly principal: VerifiedPrincipal,
  ) {}

  get(core: string): Promise<CoreSession> {
    return this.sessions.get(core, this.principal);
  }

  renew(stale: CoreSession): Promise<CoreSession> {
    return this.sessions.renew(stale, this.principal);
  }

  drop(stale: CoreSession): Promise<void> {
    return this.sessions.drop(stale, this.principal);
  }

  adopt(previous: CoreSession, cookie: string): Promise<void> {
    return this.sessions.adopt(previous, cookie, this.principal);
  }
}

/**
 * A visitor's core session for this request only: the core cookie its `X-Svc-Visitor-State` carries
 * (bound to its handle), or none; what the core sets goes back sealed, and nothing is kept.
 */
class CarriedVisitorSession implements HeldSession {
  #cookie: string;
  #adopted: string | undefined;

  constructor(
    private readonly deps: ProxyDeps,
    private readonly principal: VerifiedPrincipal,
    headers: IncomingHttpHeaders,
  ) {
    const carried = deps.visitorStates.open(principal, headers[VISITOR_STATE_HEADER.toLowerCase()]);
    this.#cookie = carried === undefined || carried === '' ? '' : `${deps.cookieName}=${carried}`;
  }

  async get(core: string): Promise<CoreSession> {
    return { core, cookie: this.#cookie, anonymous: true };
  }

  async renew(stale: CoreSession): Promise<CoreSession> {
    this.#cookie = '';
    return freshVisitor(stale.core);
  }

  async drop(): Promise<void> {
    this.#cookie = '';
  }

  async adopt(_previous: CoreSession, cookie: string): Promise<void> {
    this.#cookie = this.#adopted = cookie;
  }

  /** The sealed value of the core cookie set during this request, if the core set one. */
  newState(): string | undefined {
    if (this.#adopted === undefined) return undefined;
    const value = cookieValue(this.#adopted, this.deps.cookieName);
    return value === undefined ? undefined : this.deps.visitorStates.seal(this.principal, value);
  }
}

interface Verdict {
  /** The core session is dead: log in again and retry once. */
  renew: boolean;
  /** The core revoked the session: never log in again for this portal session; the answer goes back. */
  revoked?: boolean;
  /** The body, when it had to be read to decide. */
  body?: Buffer;
}

/** Most answers: no cookie set, nothing about the session said. */
const NOTHING_TO_DO: Verdict = Object.freeze({ renew: false });

async function inspect(deps: ProxyDeps, answer: Dispatcher.ResponseData, session: CoreSession, held: HeldSession, method: string): Promise<Verdict> {
  const setCookie = answer.headers['set-cookie'];
  const reissued = setCookie !== undefined && (await adoptCookies(deps, answer, session, held, setCookie));
  // Neither a refusal nor a challenge: nothing below can apply (the common case, decided without parsing).
  if (answer.statusCode !== 401 && answer.statusCode !== 403 && answer.headers['www-authenticate'] === undefined && !reissued) return NOTHING_TO_DO;
  const wwwAuthenticate = String(answer.headers['www-authenticate'] ?? '');
  let body: Buffer | undefined;
  let code: string | undefined;
  if ((answer.statusCode === 401 || answer.statusCode === 403) && method !== 'HEAD') {
    body = await readBounded(answer.body);
    code = problemCode(body);
  }
  if (/error="session_revoked"/.test(wwwAuthenticate) || code === 'session_revoked') return { renew: false, revoked: true, body };
  const dead =
    /error="session_expired"/.test(wwwAuthenticate) ||
    (code !== undefined && DEAD_SESSION_CODES.has(code)) ||
    (answer.statusCode === 401 && code === undefined && /login="/.test(wwwAuthenticate));
  if (dead) return { renew: true, body };
  // A stored (USER) session never changes its value: a new cookie means the core replaced a dead one.
  if (reissued && !session.anonymous) {
    if (SAFE_METHODS.has(method)) return { renew: true, body };
    await held.drop(session);
  }
  return { renew: false, body };
}

/**
 * Applies the answer's Set-Cookie to the session's cookies; says whether the core issued a new
 * session cookie. A visitor follows whatever the core issues; a user keeps the core's other cookies
 * (flow state) only while its session cookie stays the same.
 */
async function adoptCookies(deps: ProxyDeps, answer: Dispatcher.ResponseData, session: CoreSession, held: HeldSession, setCookie: string | string[]): Promise<boolean> {
  const cookie = applySetCookie(session.cookie, setCookie);
  const issued = cookieValue(cookie, deps.cookieName);
  const reissued = issued !== undefined && issued !== cookieValue(session.cookie, deps.cookieName);
  if (cookie !== session.cookie && (session.anonymous || !reissued)) {
    try {
      await held.adopt(session, cookie);
    } catch (error) {
      // The answer is not passed on (503): free its connection before giving up.
      await answer.body.dump().catch(() => undefined);
      throw error;
    }
  }
  return reissued;
}

async function readBounded(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_REFUSAL_BYTES) throw new BadGateway('the core answered an oversized refusal');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The `code` of a JSON or XML problem body, if there is one. */
function problemCode(body: Buffer): string | undefined {
  const text = body.toString('utf8');
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && typeof (parsed as { code?: unknown }).code === 'string') return (parsed as { code: string }).code;
  } catch {
    // not JSON: try XML below
  }
  return /<code>([a-z_]+)<\/code>/.exec(text)?.[1];
}

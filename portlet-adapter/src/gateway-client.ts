/**
 * The only code in `portlet-adapter/` that speaks to svc (SPEC 10.3): HTTP to the gateway, every
 * request signed with the portal's secret as a v2 principal assertion (SPEC 9: the portal user's
 * `contextId/uniqueId` or none for a visitor, the portal session's handle, the browser's address),
 * JSON both ways, problem details turned into typed errors (the client library's `SvcClientError`
 * family, so a portlet can `switch (error.code)`). With several gateways requests are spread
 * round-robin, and a gateway that cannot be reached is skipped for a while.
 *
 * Portlets get a `SvcGateway` (this client bound to the request's principal) as the request
 * attribute `GATEWAY_ATTRIBUTE`; they never hold a core session, a client secret or the portal secret.
 *
 * What a page costs at the gateway (issue 28): a context's definition (`GET {gw}/api/contexts/{c}`)
 * changes only when the core's configuration is reloaded, so it is kept per gateway for
 * DEFINITION_LIFETIME_MS and shared by every principal and every concurrent render, then
 * revalidated with its ETag (a 304 keeps it another lifetime, at the cost of no body); and within one
 * portal request, windows asking for the same document share one answer (`SvcGateway`).
 */
import { Agent, request } from 'undici';
import { ASSERTION_HEADER, signPrincipalAssertion } from '../../common/src/assertion/principal-assertion';
import { isNotSent } from '../../common/src/http/not-sent';
import type { PrincipalName } from '../../common/src/principal-name';
import type { Operation } from '../../common/src/wire/operations';
import type { SessionView } from '../../common/src/wire/session-view';
import { SvcClientError, clientFailure, errorFromProblem, type ProblemInfo } from '../../client/src/errors';

export { signPrincipalAssertion, ASSERTION_HEADER } from '../../common/src/assertion/principal-assertion';
/** What every failed request throws: a portlet tests `instanceof SvcClientError` and switches on `code`. */
export { SvcClientError, type SvcErrorCode } from '../../client/src/errors';

/** The request attribute under which a portlet finds its `SvcGateway`. */
export const GATEWAY_ATTRIBUTE = 'svc.gateway';

/**
 * The request attribute under which svc's portal gives a logged-in user's portlets the URL of the
 * page where that user turns two-step sign-in on (Self-Service; SPEC 15); absent when it shows none.
 */
export const SECOND_FACTOR_PAGE_ATTRIBUTE = 'svc.secondFactorPage';

/**
 * How long a context's definition is used before the gateway is asked again. Definitions change only
 * on a core configuration reload, which a page then shows within this time (a form built from the old
 * one meets the core's refusal of what it no longer takes, in words).
 */
export const DEFINITION_LIFETIME_MS = 30_000;

/** `/contexts/{c}`: the definition of one context, the same for every principal who may read it. */
const DEFINITION_PATH = /^\/contexts\/[^/?#]+$/;

/** A visitor's core state, sealed by the gateway (SPEC 9): the portal carries it and never opens it. */
export const VISITOR_STATE_HEADER = 'X-Svc-Visitor-State';

/**
 * A visitor's gateway state for one portal request: sent with each gateway request, and replaced by
 * the newer one an answer brings (the portal keeps the newest in the visitor's cookie).
 */
export interface CarriedGatewayState {
  value: string | undefined;
}

/** Who a request is for (SPEC 9's `user`, `visitor` and `address`). */
export interface GatewayPrincipal {
  /** The portal user's svc subject; null for a visitor. */
  user: PrincipalName | null;
  /** The portal session's handle (a user's) or the visitor cookie's (a visitor's). */
  visitor: string;
  /** The browser's address as the portal saw it (through `trustProxy`), or null. */
  address: string | null;
  /** A visitor's gateway state (absent for a user: the gateway holds a user's core session). */
  state?: CarriedGatewayState;
}

export type GatewayMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS';

export interface GatewayRequest {
  method: GatewayMethod;
  /** Under `{gw}/api`, starting with `/`, segments already encoded (see `apiPath`). */
  path: string;
  query?: Readonly<Record<string, string | number | undefined>>;
  /** Sent as JSON. */
  body?: unknown;
  /** `If-Match`, `X-Operation` and the like; never credentials. */
  headers?: Readonly<Record<string, string>>;
}

export interface GatewayResponse<T = unknown> {
  status: number;
  headers: Readonly<Record<string, string>>;
  /** The parsed JSON body; undefined when empty. */
  body: T | undefined;
}

/** svc's session structure (SPEC 4), as `login` answers it. */
export type SvcSessionInfo = SessionView;

/** One AuthZEN evaluation (SPEC 6): the operation, and the resource as `{type, id}`. */
export interface Evaluation {
  action: Operation;
  resource: { type: 'subjects' | 'subject' | 'subject.password' | 'subject.lockout' | 'subject.otp' | 'subject.events' | 'subject.mail'; id: string };
}

/**
 * One evaluation's answer: allowed, denied, or denied only because the session's level is too low
 * (reason `step_up_required`, SPEC 15): a portlet shows that control as a link to the step-up form.
 */
export type Decision = 'allow' | 'deny' | 'step_up';

/** A login step's answer (SPEC 9): the session and roles, or a second factor's code is needed. */
export type LoginAnswer = { session: SvcSessionInfo; roles: string[] } | { otpRequired: string };

export interface GatewayClientOptions {
  /** `{gw}` of each gateway, e.g. `http://127.0.0.1:8081/gw`. */
  gateways: readonly string[];
  portalId: string;
  secret: string;
  /** Per request, for the answer's headers and body (default 10 s). */
  timeoutMs?: number;
  /** How long an unreachable gateway is skipped (default 5 s). */
  skipFailedMs?: number;
  /**
   * Hears every `session_revoked` answer for a user: svc ended that portal session's core session
   * (the user's password changed, or the user was disabled or deleted), so the portal ends the portal
   * session the principal's `visitor` handle names (SPEC 10.2).
   */
  onSessionRevoked?: (principal: GatewayPrincipal) => void;
  now?: () => number;
}

export class GatewayClient {
  readonly #gateways: string[];
  readonly #failedUntil: number[];
  readonly #agent: Agent;
  readonly #now: () => number;
  /** Context definitions by gateway and path: the answer (or the request under way) and until when it is used. */
  readonly #definitions = new Map<string, { until: number; answer: Promise<GatewayResponse> }>();
  #next = 0;

  constructor(private readonly options: GatewayClientOptions) {
    if (options.gateways.length === 0) throw new TypeError('GatewayClient: at least one gateway');
    this.#gateways = options.gateways.map((g) => g.replace(/\/+$/, ''));
    this.#failedUntil = this.#gateways.map(() => 0);
    const timeout = options.timeoutMs ?? 10_000;
    this.#agent = new Agent({ keepAliveTimeout: 30_000, headersTimeout: timeout, bodyTimeout: timeout });
    this.#now = options.now ?? Date.now;
  }

  /** One signed request; an answer of 400 or more is thrown as an `SvcClientError`. */
  async request<T = unknown>(principal: GatewayPrincipal, req: GatewayRequest): Promise<GatewayResponse<T>> {
    if (!req.path.startsWith('/')) throw new TypeError('GatewayClient: a path under {gw}/api starts with /');
    const tried = new Set<number>();
    for (;;) {
      const index = this.#pick(tried);
      tried.add(index);
      const url = new URL(`${this.#gateways[index]}/api${req.path}`);
      for (const [name, value] of Object.entries(req.query ?? {})) if (value !== undefined) url.searchParams.append(name, String(value));
      try {
        return isDefinitionRequest(req) ? await this.#definition<T>(index, principal, req, url) : await this.#send<T>(principal, req, url);
      } catch (error) {
        if (error instanceof SvcClientError) throw error;
        const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
        // The request never left: trying another gateway cannot repeat it.
        if (code !== undefined && isNotSent(code)) {
          this.markUnreachable(index);
          if (tried.size < this.#gateways.length) continue;
        }
        throw clientFailure('transport_error', `${req.method} ${url.pathname}: ${code ?? (error as Error).message}`, 0, error);
      }
    }
  }

  /**
   * `POST {gw}/api/login` for a visitor: svc checks the password; the portal keeps none. A subject
   * with a second factor answers `{otpRequired: pending}` (see `loginStep`).
   */
  async login(visitor: GatewayPrincipal, user: string, password: string): Promise<LoginAnswer> {
    return this.loginStep({ ...visitor, user: null, state: undefined }, { user, password });
  }

  /**
   * One step of `POST {gw}/api/login` (SPEC 9, 15): `{user, password}` or the second step `{pending,
   * otp}`, asserted for `principal`: a visitor with the handle of the portal session a login will
   * make, or the portal user with the current session's handle (a step-up: the gateway then replaces
   * that session's core session). `otp_required` is answered as `{otpRequired: pending}`; every other
   * refusal is thrown.
   */
  async loginStep(principal: GatewayPrincipal, body: { user: string; password: string } | { pending: string; otp: string }): Promise<LoginAnswer> {
    let answer;
    try {
      answer = await this.request<{ session: SvcSessionInfo; roles?: unknown }>({ ...principal, state: undefined }, { method: 'POST', path: '/login', body });
    } catch (error) {
      const pending = error instanceof SvcClientError && error.code === 'otp_required' ? error.problem.pending : undefined;
      if (typeof pending === 'string' && pending !== '') return { otpRequired: pending };
      throw error;
    }
    const session = answer.body?.session;
    if (!session || typeof session !== 'object' || !session.principal) throw clientFailure('bad_response', 'a login answer without a principal', answer.status);
    const roles = Array.isArray(answer.body?.roles) ? answer.body.roles.filter((r): r is string => typeof r === 'string') : [];
    return { session, roles };
  }

  /** `POST {gw}/api/logout`: ends the user's core session at the gateway. */
  async logout(principal: GatewayPrincipal): Promise<void> {
    await this.request(principal, { method: 'POST', path: '/logout' });
  }

  /** One batch of AuthZEN evaluations for the principal, in order; an item that failed is a DENY. */
  async evaluations(principal: GatewayPrincipal, items: readonly Evaluation[]): Promise<boolean[]> {
    return (await this.decisions(principal, items)).map((decision) => decision === 'allow');
  }

  /** The same batch, each denial telling whether a step-up would allow it (`step_up_required`, SPEC 15). */
  async decisions(principal: GatewayPrincipal, items: readonly Evaluation[]): Promise<Decision[]> {
    if (items.length === 0) return [];
    const body = { evaluations: items.map((item) => ({ action: { name: item.action }, resource: item.resource })) };
    const answer = await this.request<{ evaluations?: Array<{ decision?: unknown; context?: { reason?: unknown } }> }>(principal, { method: 'POST', path: '/access/v1/evaluations', body });
    const decisions = answer.body?.evaluations ?? [];
    return items.map((_item, i) => (decisions[i]?.decision === true ? 'allow' : decisions[i]?.context?.reason === 'step_up_required' ? 'step_up' : 'deny'));
  }

  /** This client bound to one principal: what a portlet gets. `onWrite` hears every successful write. */
  bind(principal: GatewayPrincipal, onWrite?: (path: string) => void): SvcGateway {
    return new SvcGateway(this, principal, onWrite);
  }

  /** The next gateway to use (round-robin, skipping unreachable ones): for a caller that forwards itself. */
  nextGateway(): { index: number; base: string } {
    const index = this.#pick(new Set());
    return { index, base: this.#gateways[index] };
  }

  /** svc revoked the core session of a user's portal session (an answer through the gateway said so). */
  sessionRevoked(principal: GatewayPrincipal): void {
    this.options.onSessionRevoked?.(principal);
  }

  /** A gateway could not be reached: it is skipped for a while. */
  markUnreachable(index: number): void {
    this.#failedUntil[index] = this.#now() + (this.options.skipFailedMs ?? 5_000);
  }

  /** The `X-Svc-Principal` value of one request: `pathAndQuery` exactly as it will be sent to the gateway. */
  assertion(principal: GatewayPrincipal, method: string, pathAndQuery: string): string {
    return signPrincipalAssertion({
      portalId: this.options.portalId,
      secret: this.options.secret,
      user: principal.user,
      visitor: principal.visitor,
      address: principal.address,
      method,
      pathAndQuery,
    });
  }

  /** Whether some gateway says it is ready. */
  async ready(): Promise<boolean> {
    const answers = await Promise.all(
      this.#gateways.map(async (gateway) => {
        try {
          const answer = await request(`${new URL(gateway).origin}/ready`, { dispatcher: this.#agent });
          await answer.body.dump();
          return answer.statusCode === 200;
        } catch {
          return false;
        }
      }),
    );
    return answers.some(Boolean);
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }

  async #send<T>(principal: GatewayPrincipal, req: GatewayRequest, url: URL): Promise<GatewayResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/json', ...lowerCase(req.headers) };
    headers[ASSERTION_HEADER.toLowerCase()] = this.assertion(principal, req.method, url.pathname + url.search);
    const carried = principal.user === null ? principal.state : undefined;
    if (carried?.value !== undefined) headers[VISITOR_STATE_HEADER.toLowerCase()] = carried.value;
    let body: string | undefined;
    if (req.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.body);
    }
    const answer = await request(url, { method: req.method, headers, body, dispatcher: this.#agent });
    // The newest visitor state the gateway gave, refusals included (the core may set one on any answer).
    const newer = answer.headers[VISITOR_STATE_HEADER.toLowerCase()];
    if (carried !== undefined && typeof newer === 'string' && newer !== '') carried.value = newer;
    let text: string;
    try {
      text = await answer.body.text();
    } catch (error) {
      throw clientFailure('transport_error', `${req.method} ${url.pathname}: ${(error as Error).message}`, answer.statusCode, error);
    }
    const answerHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && name !== VISITOR_STATE_HEADER.toLowerCase()) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    let parsed: unknown;
    if (text.trim() !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        throw clientFailure('bad_response', `${req.method} ${url.pathname}: the answer is not JSON (${answer.statusCode})`, answer.statusCode);
      }
    }
    if (answer.statusCode >= 400) {
      const problem = parsed && typeof parsed === 'object' ? (parsed as ProblemInfo) : { title: `HTTP ${answer.statusCode}` };
      const error = errorFromProblem(answer.statusCode, problem);
      if (error.code === 'session_revoked' && principal.user !== null) this.sessionRevoked(principal);
      throw error;
    }
    return { status: answer.statusCode, headers: answerHeaders, body: parsed as T | undefined };
  }

  /**
   * A context's definition from gateway `index`: the one held for it while fresh, else asked for
   * (concurrent askers share that request). A failed request is not kept; a caller who shared
   * another principal's failed request asks on its own (the failure may be that principal's alone).
   */
  async #definition<T>(index: number, principal: GatewayPrincipal, req: GatewayRequest, url: URL): Promise<GatewayResponse<T>> {
    const key = `${index} ${req.path}`;
    const now = this.#now();
    const held = this.#definitions.get(key);
    if (held !== undefined && held.until > now) {
      try {
        return (await held.answer) as GatewayResponse<T>;
      } catch {
        return this.#send<T>(principal, req, url);
      }
    }
    // Past its lifetime, the definition held is asked for again only if it changed (If-None-Match).
    // The entry is in place before anything is awaited, so that concurrent askers share this request.
    const answer = (async () => {
      const stale = (await held?.answer.catch(() => undefined)) as GatewayResponse<T> | undefined;
      const etag = stale?.headers.etag;
      const fresh = await this.#send<T>(principal, etag === undefined ? req : { ...req, headers: { ...req.headers, 'if-none-match': etag } }, url);
      return fresh.status === 304 && stale !== undefined ? stale : frozen(fresh);
    })();
    const entry = { until: now + DEFINITION_LIFETIME_MS, answer };
    this.#definitions.set(key, entry);
    answer.catch(() => {
      if (this.#definitions.get(key) === entry) this.#definitions.delete(key);
    });
    return answer;
  }

  /** Round-robin over the gateways not skipped (all of them, when every one is). */
  #pick(tried: Set<number>): number {
    const now = this.#now();
    const count = this.#gateways.length;
    for (let step = 0; step < count; step++) {
      const index = (this.#next + step) % count;
      if (!tried.has(index) && this.#failedUntil[index] <= now) {
        this.#next = (index + 1) % count;
        return index;
      }
    }
    for (let index = 0; index < count; index++) if (!tried.has(index)) return index;
    throw new TypeError('GatewayClient: no gateway left to try');
  }
}

/**
 * The gateway as one portlet request sees it: bound to the request's principal. Paths are under
 * `{gw}/api` (`apiPath('contexts', c, 'subjects', s)` encodes the segments).
 */
export class SvcGateway {
  /**
   * The GETs of this portal request by path and query: two windows of one page that need the same
   * document share one request and one (frozen) answer. Any write forgets them all.
   */
  readonly #reads = new Map<string, Promise<GatewayResponse>>();

  constructor(
    private readonly client: GatewayClient,
    readonly principal: GatewayPrincipal,
    private readonly onWrite?: (path: string) => void,
  ) {}

  async request<T = unknown>(req: GatewayRequest): Promise<GatewayResponse<T>> {
    if (req.method === 'GET' && req.headers === undefined) {
      const key = `${req.path} ${JSON.stringify(req.query ?? {})}`;
      let read = this.#reads.get(key);
      if (read === undefined) this.#reads.set(key, (read = this.client.request(this.principal, req).then(frozen)));
      return read as Promise<GatewayResponse<T>>;
    }
    const answer = await this.client.request<T>(this.principal, req);
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS') {
      this.#reads.clear();
      this.onWrite?.(req.path);
    }
    return answer;
  }

  get<T = unknown>(path: string, query?: GatewayRequest['query']): Promise<GatewayResponse<T>> {
    return this.request<T>({ method: 'GET', path, query });
  }
  post<T = unknown>(path: string, body?: unknown, headers?: GatewayRequest['headers']): Promise<GatewayResponse<T>> {
    return this.request<T>({ method: 'POST', path, body, headers });
  }
  put<T = unknown>(path: string, body?: unknown, headers?: GatewayRequest['headers']): Promise<GatewayResponse<T>> {
    return this.request<T>({ method: 'PUT', path, body, headers });
  }
  delete<T = unknown>(path: string, headers?: GatewayRequest['headers']): Promise<GatewayResponse<T>> {
    return this.request<T>({ method: 'DELETE', path, headers });
  }

  /** One batch of checks for this principal (SPEC 10.3: one per render, never one per button). */
  evaluations(items: readonly Evaluation[]): Promise<boolean[]> {
    return this.client.evaluations(this.principal, items);
  }

  /** The same batch, each denial telling whether a step-up would allow it. */
  decisions(items: readonly Evaluation[]): Promise<Decision[]> {
    return this.client.decisions(this.principal, items);
  }
}

function isDefinitionRequest(req: GatewayRequest): boolean {
  return req.method === 'GET' && req.query === undefined && req.headers === undefined && DEFINITION_PATH.test(req.path);
}

/** An answer several callers share, made read-only so that none can change what the others see. */
function frozen<T>(answer: GatewayResponse<T>): GatewayResponse<T> {
  deepFreeze(answer);
  return answer;
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}

/** `/a/b%2Fc`: a path under `{gw}/api` from its segments, each encoded. */
export function apiPath(...segments: string[]): string {
  return segments.map((s) => `/${encodeURIComponent(s)}`).join('');
}

function lowerCase(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === 'cookie' || lower === 'authorization' || lower === ASSERTION_HEADER.toLowerCase() || lower === VISITOR_STATE_HEADER.toLowerCase()) continue;
    out[lower] = value;
  }
  return out;
}

/**
 * Every route of the gateway: operations at the root; for everything else portal trust, then exactly
 * SPEC section 9's routes under `{gw}/api`, each mapped to its place under the core's `{base}`;
 * anything else is 404. Requests are served straight from node's request (express's router would
 * cost more than the gateway's own work); express serves only the operations. One error handler
 * turns failures into problem details.
 */
import http from 'node:http';
import express, { type Request, type Response } from 'express';
import type { VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import { NotFound } from '../../common/src/errors';
import { adoptExpressExchange, expressServerOptions } from '../../common/src/http/express-prototypes';
import { malformedPathEscape } from '../../common/src/http/path-encoding';
import { opsRouter, type Readiness } from '../../common/src/http/ops';
import { DEFAULT_LOG, logsRequest, type LogSettings } from '../../common/src/request-log-settings';
import { bufferBody } from './body';
import type { CoreLogin } from './core-login';
import { type GatewayMetrics, type Logger } from './observability';
import type { CredentialParameterTest } from '../../common/src/wire/credential-parameters';
import { isPlainPath, splitTarget, stripQuery } from './paths';
import { sendProblem } from './problem';
import type { PendingSeals } from './pending-seal';
import { portalLogin } from './portal-login';
import { proxy, type ProxyDeps } from './proxy';
import { type TrustOptions, portalTrust } from './trust';

export interface GatewayAppDeps extends ProxyDeps {
  bodyLimit: number;
  /** The query parameters never forwarded (`gateway.credentialParameters` beside svc's defaults). */
  isCredentialParameter: CredentialParameterTest;
  /** Which requests get a log line (`gateway.log`); all when not given. */
  requestLog?: LogSettings;
  login: CoreLogin;
  /** Seals a login's pending second step to its portal session (SPEC 9, 15). */
  pendings: PendingSeals;
  log: Logger;
  metrics: GatewayMetrics;
  trust: TrustOptions;
}

/** `query`: the raw query without `?`, as the listener split it off once. */
type Handler = (deps: GatewayAppDeps, req: Request, res: Response, rest: string, principal: VerifiedPrincipal, query: string) => Promise<void>;

interface Route {
  name: string;
  methods?: readonly string[];
  matches(rest: string): boolean;
  handle: Handler;
}

/** `rest` is the raw path after `{gw}/api`. */
const ROUTES: readonly Route[] = [
  { name: 'session', matches: (rest) => rest === '/session', handle: forwardTo(() => '/resources/session') },
  { name: 'contexts', matches: (rest) => rest === '/contexts' || rest.startsWith('/contexts/'), handle: forwardTo((rest) => `/resources${rest}`) },
  { name: 'authz', matches: (rest) => rest.startsWith('/authz/'), handle: forwardTo((rest) => `/resources${rest}`) },
  // SPEC 16: a mailed link used through the portal (the visitor's own core session, like the forgotten-password flow).
  { name: 'password-reset', methods: ['PUT'], matches: (rest) => rest === '/password-reset', handle: forwardTo(() => '/resources/password-reset') },
  { name: 'email-verification', methods: ['POST'], matches: (rest) => rest === '/email-verification', handle: forwardTo(() => '/resources/email-verification') },
  { name: 'access', matches: (rest) => rest.startsWith('/access/v1/'), handle: forwardTo((rest) => rest) },
  { name: 'login', methods: ['POST'], matches: (rest) => rest === '/login', handle: (deps, req, res, _rest, principal) => portalLogin(deps, req, res, principal) },
  { name: 'logout', methods: ['POST'], matches: (rest) => rest === '/logout', handle: logout },
];

function forwardTo(corePath: (rest: string) => string): Handler {
  return async (deps, req, res, rest, principal, query) => {
    const body = await bufferBody(req, res, deps.bodyLimit);
    await proxy(deps, principal, { method: req.method, path: corePath(rest), query: stripQuery(query, deps.isCredentialParameter), headers: req.headers, body }, res);
  };
}

/** Ends the principal's core sessions (on every core) and forgets them; 204 even when there were none. */
async function logout(deps: GatewayAppDeps, _req: Request, res: Response, _rest: string, principal: VerifiedPrincipal): Promise<void> {
  const sessions = await deps.sessions.take(principal);
  await Promise.all(sessions.map((s) => deps.login.logout(s.core, s.cookie).catch(() => undefined)));
  res.status(204).end();
}

function handleError(log: Logger, error: unknown, req: Request, res: Response): void {
  const status = (error as { status?: unknown }).status;
  if (typeof status !== 'number' || status >= 500) log.warn({ err: error, path: splitTarget(req.originalUrl).path }, 'gateway request failed');
  sendProblem(res, error, req.headers.accept);
}

/** What common/src/http/ops.ts answers, without a principal assertion. */
const OPS_PATHS = new Set(['/health', '/ready', '/metrics']);

/** A core answers; with shared sessions (`gateway.redis`), Redis too: `{"checks":{"cores":"up","redis":"down"}}`. */
async function readiness(deps: GatewayAppDeps): Promise<Readiness> {
  const cores = deps.pool.healthy.length > 0;
  if (!deps.sessions.ready) return cores;
  const redis = await deps.sessions.ready();
  return { ready: cores && redis, checks: { cores: cores ? 'up' : 'down', redis: redis ? 'up' : 'down' } };
}

export interface GatewayHttp {
  /** For http.createServer. */
  options: http.ServerOptions;
  listener: http.RequestListener;
}

export function createGatewayHttp(deps: GatewayAppDeps): GatewayHttp {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.use(opsRouter({ ready: () => readiness(deps), registry: deps.metrics.registry }));
  app.use((_req: Request, res: Response) => sendProblem(res, new NotFound('no such resource')));
  const options = expressServerOptions(app);

  const prefix = `${deps.root}/api`;
  const requestLog = deps.requestLog ?? DEFAULT_LOG;
  // Lines of fixed fields, none a secret: they skip the redaction walk (as the core's request lines do).
  const lines = deps.log.child({}, { redact: { paths: [] } });
  const trust = portalTrust(deps.trust);
  /** A path that does not decode is 400 at once; then portal trust, for every path (known or not), then the route. */
  const serve = async (req: Request, res: Response, path: string, query: string) => {
    const malformed = malformedPathEscape(path);
    if (malformed) throw malformed;
    const principal = await trust(req);
    const rest = path.startsWith(`${prefix}/`) && isPlainPath(path) ? path.slice(prefix.length) : undefined;
    const route = rest === undefined ? undefined : ROUTES.find((r) => r.matches(rest) && (r.methods === undefined || r.methods.includes(req.method)));
    if (rest === undefined || route === undefined) throw new NotFound('no such resource');
    res.locals.route = route.name;
    await route.handle(deps, req, res, rest, principal, query);
  };

  const listener: http.RequestListener = (incoming, outgoing) => {
    const { req, res } = adoptExpressExchange(incoming, outgoing);
    const started = process.hrtime.bigint();
    const { path, query } = splitTarget(req.url);
    res.on('finish', () => {
      const route = String(res.locals.route ?? 'unmatched');
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      deps.metrics.observeRequest(req.method, route, res.statusCode, seconds);
      // The path without its query; never the assertion, a cookie or the principal's name.
      if (logsRequest(requestLog, res.statusCode)) lines.info({ method: req.method, path, route, status: res.statusCode, ms: Math.round(seconds * 1e5) / 100 }, 'request');
    });
    if (OPS_PATHS.has(path) && (req.method === 'GET' || req.method === 'HEAD')) {
      // Counted apart from the portal's requests (a scrape is not a request of a page).
      res.locals.route = path;
      app(req, res);
      return;
    }
    serve(req, res, path, query).catch((error: unknown) => handleError(deps.log, error, req, res));
  };
  return { options, listener };
}

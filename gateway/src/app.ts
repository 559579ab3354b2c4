/**
 * Every route of the gateway, in order: operations at the root; portal trust for everything else;
 * then exactly SPEC section 9's routes under `{gw}/api`, each mapped to its place under the core's
 * `{base}`; anything else is 404. One error handler turns failures into problem details.
 */
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler, type Response } from 'express';
import { NotFound } from '../../common/src/errors';
import { bufferBody } from './body';
import type { CoreLogin } from './core-login';
import { opsRouter } from '../../common/src/http/ops';
import { type GatewayMetrics, type Logger } from './observability';
import { isPlainPath, splitTarget, stripQuery } from './paths';
import { sendProblem } from './problem';
import { proxy, type ProxyDeps } from './proxy';
import { principalOf, type TrustOptions, portalTrust } from './trust';

export interface GatewayAppDeps extends ProxyDeps {
  root: string;
  bodyLimit: number;
  login: CoreLogin;
  log: Logger;
  metrics: GatewayMetrics;
  trust: TrustOptions;
}

type Handler = (deps: GatewayAppDeps, req: Request, res: Response, rest: string) => Promise<void>;

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
  { name: 'access', matches: (rest) => rest.startsWith('/access/v1/'), handle: forwardTo((rest) => rest) },
  { name: 'logout', methods: ['POST'], matches: (rest) => rest === '/logout', handle: logout },
];

function forwardTo(corePath: (rest: string) => string): Handler {
  return async (deps, req, res, rest) => {
    const body = await bufferBody(req, deps.bodyLimit);
    const { query } = splitTarget(req.originalUrl);
    await proxy(deps, principalOf(res.locals), { method: req.method, path: corePath(rest), query: stripQuery(query), headers: req.headers, body }, res);
  };
}

/** Ends the principal's core sessions (on every core) and forgets them; 204 even when there were none. */
async function logout(deps: GatewayAppDeps, _req: Request, res: Response): Promise<void> {
  const sessions = deps.sessions.take(principalOf(res.locals));
  await Promise.all(sessions.map((s) => deps.login.logout(s.core, s.cookie).catch(() => undefined)));
  res.status(204).end();
}

function router(deps: GatewayAppDeps): RequestHandler {
  const prefix = `${deps.root}/api`;
  return async (req, res, next) => {
    try {
      const { path } = splitTarget(req.originalUrl);
      const rest = path.startsWith(`${prefix}/`) && isPlainPath(path) ? path.slice(prefix.length) : undefined;
      const route = rest === undefined ? undefined : ROUTES.find((r) => r.matches(rest) && (r.methods === undefined || r.methods.includes(req.method)));
      if (rest === undefined || route === undefined) throw new NotFound('no such resource');
      res.locals.route = route.name;
      await route.handle(deps, req, res, rest);
    } catch (error) {
      next(error);
    }
  };
}

function requestMetrics(metrics: GatewayMetrics): RequestHandler {
  return (req, res, next) => {
    const end = metrics.requests.startTimer();
    res.on('finish', () => end({ method: req.method, route: String(res.locals.route ?? 'unmatched'), status: String(res.statusCode) }));
    next();
  };
}

function errorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const status = (error as { status?: unknown }).status;
    if (typeof status !== 'number' || status >= 500) log.warn({ err: error, path: splitTarget(req.originalUrl).path }, 'gateway request failed');
    sendProblem(res, error, req.headers.accept);
  };
}

export function createGatewayApp(deps: GatewayAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.use(requestMetrics(deps.metrics));
  app.use(opsRouter({ ready: () => deps.pool.healthy.length > 0, registry: deps.metrics.registry }));
  app.use(portalTrust(deps.trust));
  app.use(router(deps));
  app.use(errorHandler(deps.log));
  return app;
}

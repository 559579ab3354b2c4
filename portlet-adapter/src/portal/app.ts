/**
 * The portal's HTTP face: every route in one table (SPEC 10.2), each handler given the request's
 * identity. Operational endpoints sit at the process's root; everything else under `{root}`.
 */
import { logsRequest } from '../../../common/src/request-log-settings';
import { randomUUID } from 'node:crypto';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { MethodNotAllowed, NotFound } from '../../../common/src/errors';
import { opsRouter } from '../../../common/src/http/ops';
import { malformedPathEscape } from '../../../common/src/http/path-encoding';
import type { PortalDeps } from './deps';
import { portalErrorHandler } from './error-handler';
import { restPassThrough } from './rest-pass-through';
import type { Identity } from './identity';
import { action } from './routes/action';
import { login, loginPage, logout, logoutPage, stepUp, stepUpPage } from './routes/login';
import { home, page } from './routes/pages';
import { SCRIPT } from './theme/script';
import { STYLESHEET } from './theme/stylesheet';

type Handler = (deps: PortalDeps, req: Request, res: Response, identity: Identity) => void | Promise<void>;

interface Route {
  name: string;
  path: string;
  methods: Partial<Record<'GET' | 'POST', Handler>>;
}

const ROUTES: Route[] = [
  { name: 'home', path: '/', methods: { GET: home } },
  { name: 'login', path: '/login', methods: { GET: loginPage, POST: login } },
  { name: 'logout', path: '/logout', methods: { GET: logoutPage, POST: logout } },
  { name: 'step-up', path: '/step-up', methods: { GET: stepUpPage, POST: stepUp } },
  { name: 'page', path: '/page/:pageId', methods: { GET: page } },
  // GET never runs processAction: an action URL answers only POST.
  { name: 'action', path: '/page/:pageId/action/:windowId', methods: { POST: action } },
];

export function createPortalApp(deps: PortalDeps, ready: () => Promise<boolean>): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy.length ? [...deps.config.trustProxy] : false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.use(requestLog(deps));
  app.use((req, _res, next) => next(malformedPathEscape(req.path)));
  app.use(opsRouter({ ready, registry: deps.metrics.registry }));

  const root = express.Router({ caseSensitive: true, strict: true });
  root.get('/theme.css', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type('text/css; charset=utf-8').send(STYLESHEET);
  });
  root.get('/portal.js', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type('text/javascript; charset=utf-8').send(SCRIPT);
  });
  for (const route of ROUTES) {
    root.all(route.path, (req, res, next) => {
      res.locals.route = route.name;
      const handler = route.methods[req.method as 'GET' | 'POST'] ?? (req.method === 'HEAD' ? route.methods.GET : undefined);
      if (handler === undefined) {
        res.setHeader('Allow', Object.keys(route.methods).join(', '));
        return next(new MethodNotAllowed(`${req.method} is not allowed here.`));
      }
      // A user's session is not confirmed with svc beforehand: the gateway's answer to any of the
      // request's own calls says when svc revoked it, and the gateway client's hook ends it then
      // (SPEC 10.2; a page rendered for it is rendered again for the visitor: routes/pages.ts).
      const identity = deps.identities.of(req, res);
      res.locals.identity = identity;
      Promise.resolve()
        .then(() => handler(deps, req, res, identity))
        .catch(next);
    });
  }
  app.use(`${deps.config.root}/api`, restPassThrough(deps));
  app.get(deps.config.root, (_req, res) => res.redirect(302, `${deps.config.root}/`));
  app.use(deps.config.root, root);
  app.use((_req, _res, next) => next(new NotFound('There is no such page.')));
  app.use(portalErrorHandler(deps));
  return app;
}

/** A request id (ours, never the client's), one JSON log line and one histogram sample per request; the query (which may hold a CSRF token) is never logged. */
function requestLog(deps: PortalDeps): RequestHandler {
  return (req, res, next) => {
    const requestId = randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = typeof res.locals.route === 'string' ? res.locals.route : 'other';
      deps.metrics.requests.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      if (logsRequest(deps.config.log, res.statusCode)) deps.log.info({ requestId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(seconds * 1000) }, 'request');
    });
    next();
  };
}

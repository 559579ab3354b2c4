import http from 'node:http';
import express, { type Request, type Response } from 'express';
import { parse as parseQueryString } from 'node:querystring';
import { adoptExpressExchange, expressServerOptions } from '../../../common/src/http/express-prototypes';
import { malformedPathEscape } from '../../../common/src/http/path-encoding';
import { cors } from './cors';
import { handleError } from './error-handler';
import { runSteps, type Exchange } from './exchange';
import type { RequestState } from './request-state';
import { requestLog } from './request-log';
import { coreRoutes, RouteTable, unmatchedSteps } from './route-table';
import type { HttpServices } from './services';

export interface CoreHttp {
  /** For http.createServer / https.createServer (with the TLS options added). */
  options: http.ServerOptions;
  listener: http.RequestListener;
}

/**
 * The express application whose prototypes give requests and responses their helpers (req.query,
 * req.accepts, res.redirect…) and whose settings those helpers read; its router is not used: the
 * route table routes every request.
 */
function expressApplication(trustProxy: readonly string[]): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Every pair counts: node's default limit of 1000 keys dropped an `isAllowed` placed after 1000
  // others, so the operation was performed instead of checked (SPEC 6). The URL's size limit bounds the work.
  app.set('query parser', (text: string) => parseQueryString(text, '&', '=', { maxKeys: 0 }));
  app.set('trust proxy', trustProxy.length ? [...trustProxy] : false);
  return app;
}

/**
 * The core's HTTP entry point, where every request starts: the request log line, CORS, the 400 of a
 * path that does not decode, then the route table (route-table.ts): the request's route, whose named
 * steps it takes in order, and one place where any error becomes its answer.
 */
export function createCoreHttp(services: HttpServices): CoreHttp {
  const initial = services.config();
  const app = expressApplication(initial.server.trustProxy);
  const root = initial.server.contextRoot;
  const table = new RouteTable(root, coreRoutes(services));
  const unmatched = unmatchedSteps(services);
  const log = requestLog(services.log, services.metrics, () => services.config().log);
  const corsFor = cors(() => services.config().server.corsOrigins);

  const serve = async (req: Request, res: Response, state: RequestState): Promise<void> => {
    const { found, belowRoot } = table.match(req.path);
    // The route's template labels the log line and the histogram.
    req.route = { path: found?.label ?? 'unmatched' };
    const exchange: Exchange = {
      req,
      res,
      config: services.config(),
      path: found?.path ?? (belowRoot ? req.path.slice(root.length) : req.path),
      mount: found?.mount ?? root,
      ids: found?.ids ?? {},
      state,
      page: false,
    };
    try {
      await runSteps(found ? found.route.steps : belowRoot ? unmatched.belowRoot : unmatched.elsewhere, exchange);
      if (!res.writableEnded && !res.destroyed) throw new Error(`no step of ${req.route.path} answered ${req.method}`);
    } catch (error) {
      handleError(services.log, error, req, res, exchange.page);
    }
  };

  const listener: http.RequestListener = (incoming, outgoing) => {
    const { req, res } = adoptExpressExchange(incoming, outgoing);
    const state = log(req, res);
    if (corsFor(req, res)) return;
    // req.path (parsed once and cached) also takes the absolute form `GET http://host/svc/…` apart.
    const malformed = malformedPathEscape(req.path);
    if (malformed) return handleError(services.log, malformed, req, res);
    void serve(req, res, state);
  };
  return { options: expressServerOptions(app), listener };
}

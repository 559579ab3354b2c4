import http from 'node:http';
import type { Express, Request, Response } from 'express';
import type { Core } from '../core';
import { createApp } from './app';
import { authenticate } from './authentication-filter';
import { cors } from './cors';
import { handleError } from './error-handler';
import { requestLog } from './request-log';
import { RestRouter, type RestMatch } from './rest/router';

/**
 * Request and response classes whose prototypes are express's, so every request is born an express
 * request. Express itself swaps the prototype of each request as it arrives, which costs V8 more than
 * all the rest of a check together; the REST router never does, and express's own routes still work.
 */
function expressClasses(app: Express): Pick<http.ServerOptions, 'IncomingMessage' | 'ServerResponse'> {
  class ExpressRequest extends http.IncomingMessage {}
  Object.setPrototypeOf(ExpressRequest.prototype, app.request);
  class ExpressResponse<R extends http.IncomingMessage> extends http.ServerResponse<R> {}
  Object.setPrototypeOf(ExpressResponse.prototype, app.response);
  return { IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse };
}

export interface CoreHttp {
  /** For http.createServer / https.createServer (with the TLS options added). */
  options: http.ServerOptions;
  listener: http.RequestListener;
}

/**
 * The core's HTTP entry point, where every request starts: the request log line, CORS, then the
 * REST API (routed here, without express's router: it carries nearly all traffic and a check must
 * cost little more than a bare server's answer) or express for everything else (operations, pages,
 * login, AuthZEN, the config area, the forgotten-password flow).
 */
export function createCoreHttp(core: Core): CoreHttp {
  const app = createApp(core);
  const rest = new RestRouter(core);
  const log = requestLog(core.log, core.metrics);
  const corsFor = cors(() => core.config.server.corsOrigins);
  const root = core.config.server.contextRoot;

  const serveRest = async (match: RestMatch, req: Request, res: Response) => {
    if (!(await authenticate(core, req, res, req.path.slice(root.length)))) return;
    req.baseUrl = match.baseUrl;
    await rest.serve(match, req, res);
  };

  const listener: http.RequestListener = (incoming, outgoing) => {
    // Born of expressClasses (the server is created with `options`): express objects already.
    const req = incoming as Request;
    const res = outgoing as Response;
    req.res = res;
    req.originalUrl = req.url;
    req.baseUrl = '';
    log(req, res);
    if (corsFor(req, res)) return;
    const url = req.url;
    const query = url.indexOf('?');
    const match = url.charCodeAt(0) === 47 /* / */ ? rest.match(query < 0 ? url : url.slice(0, query)) : undefined;
    if (!match) {
      app(req, res);
      return;
    }
    // The route's template labels the log line and the histogram, as express's req.route does.
    req.route = { path: match.route.path };
    serveRest(match, req, res).catch((error: unknown) => handleError(core.log, error, req, res));
  };
  return { options: expressClasses(app), listener };
}

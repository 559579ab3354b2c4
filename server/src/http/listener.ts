import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import type { Core } from '../core';
import { createApp } from './app';
import { authenticate } from './authentication-filter';
import { cors } from './cors';
import { handleError } from './error-handler';
import { requestLog } from './request-log';
import { RestRouter, type RestMatch } from './rest/router';

/**
 * The core's HTTP entry point, where every request starts: the request log line, CORS, then the
 * REST API (routed here, without express's router: it carries nearly all traffic and a check must
 * cost little more than a bare server's answer) or express for everything else (operations, pages,
 * login, AuthZEN, the config area, the forgotten-password flow).
 */
export function createRequestListener(core: Core): (req: IncomingMessage, res: ServerResponse) => void {
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

  return (incoming, outgoing) => {
    // express's request and response prototypes, as express itself gives them, so that one set of
    // helpers (req.query, req.ip, req.accepts, res.redirect) serves both kinds of route.
    const req = Object.setPrototypeOf(incoming, app.request) as Request;
    const res = Object.setPrototypeOf(outgoing, app.response) as Response;
    req.res = res;
    res.req = req;
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
}

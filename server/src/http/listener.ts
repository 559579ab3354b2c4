import http from 'node:http';
import type { Request, Response } from 'express';
import { expressServerOptions } from '../../../common/src/http/express-prototypes';
import { malformedPathEscape } from '../../../common/src/http/path-encoding';
import type { Core } from '../core';
import { createApp } from './app';
import { authenticate } from './authentication-filter';
import { cors } from './cors';
import { handleError } from './error-handler';
import { requestLog } from './request-log';
import { RestRouter, type RestMatch } from './rest/router';
import { SERVICE_PATH, soapEndpoint } from './soap/endpoint';

export interface CoreHttp {
  /** For http.createServer / https.createServer (with the TLS options added). */
  options: http.ServerOptions;
  listener: http.RequestListener;
}

/**
 * The core's HTTP entry point, where every request starts: the request log line, CORS, then the
 * SOAP service (`{base}/services/SubjectService`, its own endpoint), the REST API (routed here,
 * without express's router: it carries nearly all traffic and a check must cost little more than a
 * bare server's answer) or express for everything else (operations, pages, login, AuthZEN, the
 * config area, the forgotten-password flow).
 */
export function createCoreHttp(core: Core): CoreHttp {
  const app = createApp(core);
  const rest = new RestRouter(core);
  const log = requestLog(core.log, core.metrics, () => core.config.log);
  const corsFor = cors(() => core.config.server.corsOrigins);
  const root = core.config.server.contextRoot;
  const soapPath = `${root}${SERVICE_PATH}`;
  const soap = soapEndpoint(core);

  const serveRest = async (match: RestMatch, req: Request, res: Response) => {
    // Ids in the path first: a path that cannot name anything is 400 before any other processing,
    // authentication included (SPEC section 3).
    const params = rest.params(match);
    if (!(await authenticate(core, req, res, req.path.slice(root.length)))) return;
    req.baseUrl = match.baseUrl;
    await rest.serve(match, params, req, res);
  };

  const listener: http.RequestListener = (incoming, outgoing) => {
    // Born express objects (the server is created with `options`).
    const req = incoming as Request;
    const res = outgoing as Response;
    req.res = res;
    req.originalUrl = req.url;
    req.baseUrl = '';
    log(req, res);
    if (corsFor(req, res)) return;
    const malformed = malformedPathEscape(req.path);
    if (malformed) return handleError(core.log, malformed, req, res);
    // req.path (parsed once and cached) also takes the absolute form `GET http://host/svc/…` apart.
    if (req.path === soapPath) {
      req.route = { path: SERVICE_PATH };
      soap(req, res).catch((error: unknown) => handleError(core.log, error, req, res));
      return;
    }
    const match = rest.match(req.path);
    if (!match) {
      app(req, res);
      return;
    }
    // The route's template labels the log line and the histogram, as express's req.route does.
    req.route = { path: match.route.path };
    serveRest(match, req, res).catch((error: unknown) => handleError(core.log, error, req, res));
  };
  return { options: expressServerOptions(app), listener };
}

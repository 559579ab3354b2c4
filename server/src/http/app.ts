import express, { Router, type Express } from 'express';
import { NotFound } from '../../../common/src/errors';
import type { Core } from '../core';
import { accessRoutes } from './access-routes';
import { authenticationFilter } from './authentication-filter';
import { configRoutes } from './config-routes';
import { cors } from './cors';
import { errorHandler } from './error-handler';
import { forgotRoutes } from './forgot-routes';
import { loginRoutes } from './login-routes';
import { opsRouter } from '../../../common/src/http/ops';
import { requestLog } from './request-log';
import { restRouter } from './rest/router';

/**
 * Every route of the core server, in order: operations at the root; under the context root the
 * authentication filter, then pages and session endpoints, then the REST router at
 * `{base}/resources` and its alias `{base}`; one error handler at the end.
 */
export function createApp(core: Core): Express {
  const app = express();
  const root = core.config.server.contextRoot;
  app.disable('x-powered-by');
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', core.config.server.trustProxy.length ? core.config.server.trustProxy : false);

  app.use(requestLog(core.log, core.metrics));
  app.use(cors(() => core.config.server.corsOrigins));
  app.use(opsRouter({ ready: () => core.ready(), registry: core.metrics.registry }));

  const base = Router({ caseSensitive: true, strict: true });
  base.use(authenticationFilter(core, () => `${root}/login`));
  // The REST router first: it carries nearly all traffic, and its paths share nothing with the
  // pages, the config area, AuthZEN or the forgotten-password flow, which follow.
  const rest = restRouter(core);
  base.use('/resources', rest);
  base.use('/', rest);
  base.use(loginRoutes(core));
  base.use(accessRoutes(core));
  base.use(configRoutes(core));
  base.use(forgotRoutes(core));
  app.use(root, base);

  app.use(() => {
    throw new NotFound('no such resource');
  });
  app.use(errorHandler(core.log));
  return app;
}

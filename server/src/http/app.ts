import { parse as parseQueryString } from 'node:querystring';
import express, { Router, type Express } from 'express';
import { NotFound } from '../../../common/src/errors';
import type { Core } from '../core';
import { accessRoutes } from './access-routes';
import { authenticationFilter } from './authentication-filter';
import { configRoutes } from './config-routes';
import { errorHandler } from './error-handler';
import { forgotPageRoutes } from './forgot-page-routes';
import { forgotRoutes } from './forgot-routes';
import { homeRoutes } from './home-routes';
import { loginRoutes } from './login-routes';
import { registerRoutes } from './register-routes';
import { refuseUntargetedChecks } from './untargeted-checks';
import { opsRouter } from '../../../common/src/http/ops';

/**
 * The routes express serves (everything but the REST API, which the listener routes itself): operations
 * at the root; under the context root the authentication filter, the refusal of checks where there
 * is no target, then login and logout, the home page, the registration and forgotten-password pages,
 * AuthZEN, the config area (JSON or a page) and the forgotten-password flow's REST face; 404 and the
 * error handler at the end.
 */
export function createApp(core: Core): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('etag', false);
  // Every pair counts: node's default limit of 1000 keys dropped an `isAllowed` placed after 1000
  // others, so the operation was performed instead of checked (SPEC 6). The URL's size limit bounds the work.
  app.set('query parser', (text: string) => parseQueryString(text, '&', '=', { maxKeys: 0 }));
  app.set('trust proxy', core.config.server.trustProxy.length ? core.config.server.trustProxy : false);

  app.use(opsRouter({ ready: () => core.ready(), registry: core.metrics.registry }));

  const base = Router({ caseSensitive: true, strict: true });
  base.use(authenticationFilter(core));
  base.use(refuseUntargetedChecks(core));
  base.use(homeRoutes(core));
  base.use(loginRoutes(core));
  base.use(registerRoutes(core));
  base.use(forgotPageRoutes(core));
  base.use(accessRoutes(core));
  base.use(configRoutes(core));
  base.use(forgotRoutes(core));
  app.use(core.config.server.contextRoot, base);

  app.use(() => {
    throw new NotFound('no such resource');
  });
  app.use(errorHandler(core.log));
  return app;
}

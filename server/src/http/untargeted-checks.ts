import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { InvalidOperation } from '../../../common/src/errors';
import type { Core } from '../core';
import { asksCheck } from './rest/check';

/**
 * SPEC section 6: a query parameter `isAllowed` (in any letter case) makes a request a check on
 * every route, and a check is never performed. The REST API and the config area have targets and
 * answer checks themselves; every other route express serves under the context root (the home page,
 * login and logout, the self-service pages, AuthZEN, the forgotten-password flow) has none, so a
 * check there is 400 `invalid_operation`, before any route could act on the request. Placed after
 * the authentication filter (as the REST API's checks are), in front of every route, so that a route
 * added later is covered too.
 */
export function refuseUntargetedChecks(core: Core): RequestHandler {
  const config = `${core.config.server.contextRoot}/config`;
  return (req: Request, _res: Response, next: NextFunction) => {
    const path = req.baseUrl + req.path;
    if (path === config || path.startsWith(`${config}/`)) return next();
    if (asksCheck(req)) throw new InvalidOperation('nothing here can be checked: a check names a resource of the REST API or the config area');
    next();
  };
}

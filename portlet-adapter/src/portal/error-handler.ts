import type { NextFunction, Request, Response } from 'express';
import { problemDetails } from '../../../common/src/problem';
import type { PortalDeps } from './deps';
import type { Identity } from './identity';
import { sendLayout } from './respond';
import { messageBody } from './theme/forms';

/**
 * The portal's one place where an error becomes an answer: its problem details (the shared
 * `problemDetails()`, so never a stack trace) as a page of the portal's layout, or as
 * `application/problem+json` under `{root}/api`.
 */
export function portalErrorHandler(deps: PortalDeps) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const { status, headers, body } = problemDetails(error);
    if (status >= 500) deps.log.error({ requestId: res.locals.requestId, err: error }, 'request failed');
    if (res.headersSent) return void res.destroy();
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    if (req.path.startsWith(`${deps.config.root}/api/`)) {
      res.status(status).type('application/problem+json').send(JSON.stringify(body));
      return;
    }
    // Outside {root} (a browser's /favicon.ico) the portal's cookies are not sent: making a visitor
    // there would set a new visitor cookie over the real one and void the forms open in its pages.
    const root = deps.config.root;
    const underRoot = req.path === root || req.path.startsWith(`${root}/`);
    const identity = (res.locals.identity as Identity | undefined) ?? (underRoot ? deps.identities.of(req, res) : deps.identities.cookielessVisitor());
    const text = status >= 500 ? `Something went wrong on our side. Reference: ${String(res.locals.requestId)}.` : (body.detail ?? body.title);
    sendLayout(deps, res, status, identity, body.title, messageBody(text, { href: `${deps.config.root}/`, label: 'Go to the portal home' }));
  };
}

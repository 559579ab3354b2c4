import type { Request, Response } from 'express';
import { AccessDenied } from '../../../common/src/errors';
import type { Operation } from '../config/types';
import type { Core } from '../core';
import { decide } from './authorize';

/**
 * Authorization of a page (SPEC section 6): the same decision, audit line and metric as any request;
 * a refused visitor who is not logged in is redirected to the login page with `goto` (a path under
 * our own root, chosen by the caller, never taken from the request), and a refused logged-in session
 * gets 403 with an HTML explanation (the caller has called answerAsPage). Resolves false when the
 * request was answered here.
 */
export async function authorizePage(core: Core, req: Request, res: Response, operation: Operation, target: string, goto: string): Promise<boolean> {
  const result = await decide(core, req.svc, operation, target);
  if (result.decision === 'ALLOW') return true;
  const session = req.svc.session;
  if (session.type === 'ANON' || session.type === 'INTERNAL') {
    res.redirect(302, `${core.config.server.contextRoot}/login?goto=${encodeURIComponent(goto)}`);
    return false;
  }
  throw new AccessDenied(403, req.svc.sessionExpired, 'this page is not open to your session');
}

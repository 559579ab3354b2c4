import { AccessDenied } from '../../../common/src/errors';
import type { Operation } from '../config/types';
import type { Decisions } from '../policy/decisions';
import { step, type Exchange } from './exchange';

/** The request is a page's (or a browser's form post): its errors are answered as an HTML page. */
export const asPage = step('asPage', (x) => {
  x.page = true;
});

/**
 * Authorization of a page (SPEC section 6): the same decision, audit line and metric as any request;
 * a refused visitor who is not logged in is redirected to the login page with `goto` (a path under
 * our own root, chosen by the caller, never taken from the request), and a refused logged-in session
 * gets 403 with an HTML explanation. Resolves false when the request was answered here.
 */
export async function authorizePage(decisions: Decisions, x: Exchange, operation: Operation, target: string, goto: string): Promise<boolean> {
  const result = await decisions.decide(x.state, operation, target);
  if (result.decision === 'ALLOW') return true;
  const session = x.state.session;
  if (session.type === 'ANON' || session.type === 'INTERNAL') {
    x.res.redirect(302, `${x.config.server.contextRoot}/login?goto=${encodeURIComponent(goto)}`);
    return false;
  }
  throw new AccessDenied(403, x.state.sessionExpired, 'this page is not open to your session');
}

/** `GET {root}/` and `GET {root}/page/{pageId}` (SPEC 10.2). */
import type { Request, Response } from 'express';
import { Forbidden, NotFound } from '../../../../common/src/errors';
import { pageState, renderWindows } from '../aggregate';
import type { PortalDeps } from '../deps';
import type { Identity } from '../identity';
import { maySeePage, visiblePages } from '../pages';
import { loginUrl, sendLayout } from '../respond';

/** To the first page this identity may see; a visitor who may see none is sent to log in. */
export function home(deps: PortalDeps, _req: Request, res: Response, identity: Identity): void {
  const first = visiblePages(identity, deps.config.pages)[0];
  if (first !== undefined) return res.redirect(302, `${deps.config.root}/page/${encodeURIComponent(first.id)}`);
  if (identity.kind === 'visitor') return res.redirect(302, loginUrl(deps.config.root));
  throw new Forbidden('There is no page for you here.');
}

/** A user's portal session that ended while its request was served (svc revoked its core session). */
function revokedDuring(deps: PortalDeps, identity: Identity): boolean {
  return identity.kind === 'user' && deps.sessions.resolve(identity.cookie) === undefined;
}

export async function page(deps: PortalDeps, req: Request, res: Response, identity: Identity): Promise<void> {
  const pageConfig = deps.pages.get(req.params.pageId as string);
  if (pageConfig === undefined) throw new NotFound('There is no such page.');
  if (!maySeePage(identity, pageConfig)) {
    if (identity.kind === 'visitor') return res.redirect(302, loginUrl(deps.config.root, req.originalUrl));
    throw new Forbidden('You are not allowed to see this page.');
  }
  const started = process.hrtime.bigint();
  const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
  const state = pageState(deps, identity, pageConfig, query);
  const body = await renderWindows(deps, req, String(res.locals.requestId), identity, pageConfig, state);
  if (revokedDuring(deps, identity)) {
    // A call of this render was answered session_revoked: the gateway client's hook ended the
    // portal session, and the page is the visitor's that the request now is (SPEC 10.2).
    const visitor = deps.identities.of(req, res);
    res.locals.identity = visitor;
    return page(deps, req, res, visitor);
  }
  deps.metrics.pages.observe({ page: pageConfig.id }, Number(process.hrtime.bigint() - started) / 1e9);
  sendLayout(deps, res, 200, identity, pageConfig.title, body, pageConfig.id, req.originalUrl);
}

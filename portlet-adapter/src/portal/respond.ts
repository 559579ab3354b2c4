import type { Response } from 'express';
import type { Html } from '../../../common/src/html';
import type { PortalDeps } from './deps';
import type { Identity } from './identity';
import { visiblePages } from './pages';
import { layout } from './theme/layout';

/**
 * Strict CSP: the portal's own stylesheet and scripts only, no inline script or style, forms post
 * only to the portal, never framed. Portlet markup lives under the same policy.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * A page, in one write. Not through express's `send`, which would hash every page for an ETag that
 * `no-store` makes useless (a User Admin page is some 35 KB); node leaves the body out for a HEAD.
 */
export function sendHtml(res: Response, status: number, text: string): void {
  const body = Buffer.from(text, 'utf8');
  res.statusCode = status;
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

/** A page of the portal's layout: header with the user, navigation of the pages this identity may see. */
export function sendLayout(deps: PortalDeps, res: Response, status: number, identity: Identity, title: string, body: Html, currentPage?: string, loginGoto?: string): void {
  const root = deps.config.root;
  const navigation = visiblePages(identity, deps.config.pages).map((page) => ({ href: `${root}/page/${encodeURIComponent(page.id)}`, title: page.title, current: page.id === currentPage }));
  const loginHref = loginUrl(root, loginGoto);
  sendHtml(
    res,
    status,
    layout({
      root,
      portalTitle: deps.config.title,
      title,
      navigation,
      user: identity.kind === 'user' ? { name: identity.session.name, logoutCsrf: deps.identities.csrfOf(identity) } : null,
      loginHref,
      body,
    }),
  );
}

export function loginUrl(root: string, goto?: string): string {
  return goto ? `${root}/login?goto=${encodeURIComponent(goto)}` : `${root}/login`;
}

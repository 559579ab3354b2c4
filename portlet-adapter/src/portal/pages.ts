/** Who may see which page and window (SPEC 10.2): roles, and the `visitors` rule of each window. */
import type { PageConfig, PortalConfig, WindowConfig } from './config/types';
import type { Identity } from './identity';

function hasRole(identity: Identity, roles: readonly string[]): boolean {
  if (roles.length === 0) return true;
  return identity.kind === 'user' && roles.some((role) => identity.session.roles.includes(role));
}

export function maySeePage(identity: Identity, page: PageConfig): boolean {
  return hasRole(identity, page.roles);
}

export function maySeeWindow(identity: Identity, window: WindowConfig): boolean {
  if (identity.kind === 'visitor') return window.visitors !== 'never' && window.roles.length === 0;
  return window.visitors !== 'only' && hasRole(identity, window.roles);
}

export function visibleWindows(identity: Identity, page: PageConfig): WindowConfig[] {
  return page.windows.filter((window) => maySeeWindow(identity, window));
}

export function visiblePages(identity: Identity, pages: readonly PageConfig[]): PageConfig[] {
  return pages.filter((page) => maySeePage(identity, page));
}

/**
 * The descriptor name of the portlet where a user turns two-step sign-in on (SPEC 15: svc's
 * Self-Service): a step-up needs one's own second factor, and where one has none, the step-up page
 * and User Admin send the user there.
 */
export const SECOND_FACTOR_PORTLET = 'self-service';

/** `{root}/page/{id}` of the first page this identity sees with a window of SECOND_FACTOR_PORTLET it sees; undefined when there is none. */
export function secondFactorPage(identity: Identity, config: Pick<PortalConfig, 'root' | 'pages'>): string | undefined {
  const page = visiblePages(identity, config.pages).find((p) => p.windows.some((w) => w.portlet === SECOND_FACTOR_PORTLET && maySeeWindow(identity, w)));
  return page && `${config.root}/page/${encodeURIComponent(page.id)}`;
}

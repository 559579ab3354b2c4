/** Who may see which page and window (SPEC 10.2): roles, and the `visitors` rule of each window. */
import type { PageConfig, WindowConfig } from './config/types';
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

import type { PortletMode } from '../api/portlet-mode';
import type { WindowState } from '../api/window-state';

/** One portlet window of a page: where a portlet definition is shown (Pluto's PortletWindow). */
export interface PortletWindow {
  /** Unique on its page; `[A-Za-z][A-Za-z0-9_]*`, so that the namespace is a valid JS name. */
  readonly id: string;
  readonly portletName: string;
}

/** What the URL says about a window: kept by the portal's URL codec, not on the server. */
export interface WindowRenderState {
  mode: PortletMode;
  state: WindowState;
  parameters: Readonly<Record<string, readonly string[]>>;
}

/** `svc_<windowId>_`: a token unique to the window on the page, valid in HTML ids and JS names. */
export function namespaceOf(windowId: string): string {
  return `svc_${windowId}_`;
}

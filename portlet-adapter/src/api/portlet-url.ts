import type { PortletMode } from './portlet-mode';
import type { WindowState } from './window-state';

/**
 * `javax.portlet.PortletURL`: a render URL (GET: sets the window's render parameters, mode and
 * state) or an action URL (POST only, carries the portal session's CSRF token: use it as a form's
 * `action`). Either keeps every other window of the page as it is.
 */
export interface PortletURL {
  /** Replaces the parameter's values. */
  setParameter(name: string, value: string | readonly string[]): void;
  /** Replaces all parameters. */
  setParameters(parameters: Readonly<Record<string, string | readonly string[]>>): void;
  /** `PortletModeException` when the window may not be in that mode. */
  setPortletMode(mode: PortletMode): void;
  /** `WindowStateException` when the portal does not support that state. */
  setWindowState(state: WindowState): void;
  /** `PortletSecurityException` when the portal cannot give that transport security. */
  setSecure(secure: boolean): void;
  /** The URL as a path of the portal, escaped for HTML attributes only by whoever writes it out. */
  toString(): string;
}

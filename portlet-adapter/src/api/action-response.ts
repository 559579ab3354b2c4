import type { PortletMode } from './portlet-mode';
import type { PortletResponse } from './portlet-response';
import type { WindowState } from './window-state';

/**
 * `javax.portlet.ActionResponse`: what the action decides for the render that follows (its 303).
 * `sendRedirect` and the other setters exclude each other: either throws `IllegalStateException`
 * once the other was used.
 */
export interface ActionResponse extends PortletResponse {
  setRenderParameter(name: string, value: string | readonly string[]): void;
  setRenderParameters(parameters: Readonly<Record<string, string | readonly string[]>>): void;
  /** `PortletModeException` when the window may not be in that mode. */
  setPortletMode(mode: PortletMode): void;
  /** `WindowStateException` when the portal does not support that state. */
  setWindowState(state: WindowState): void;
  /** A path of this portal's origin (`IllegalArgumentException` for anything else). */
  sendRedirect(location: string): void;
}

import type { PortletMode } from './portlet-mode';
import type { WindowState } from './window-state';

/** `javax.portlet.PortalContext`: what the portal running the portlet is and supports. */
export interface PortalContext {
  /** e.g. `svc-portal/0.1.0`. */
  getPortalInfo(): string;
  getProperty(name: string): string | null;
  getPropertyNames(): string[];
  getSupportedPortletModes(): PortletMode[];
  getSupportedWindowStates(): WindowState[];
}

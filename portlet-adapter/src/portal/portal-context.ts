import type { PortalContext } from '../api/portal-context';
import { PortletMode } from '../api/portlet-mode';
import { WindowState } from '../api/window-state';

const MODES = Object.freeze([PortletMode.VIEW, PortletMode.EDIT, PortletMode.HELP]);
const STATES = Object.freeze([WindowState.NORMAL, WindowState.MAXIMIZED, WindowState.MINIMIZED]);

/** What svc's portal is and supports: the three standard modes and states, nothing custom. */
export class SvcPortalContext implements PortalContext {
  constructor(
    private readonly info: string,
    private readonly properties: Readonly<Record<string, string>> = {},
  ) {}

  getPortalInfo(): string {
    return this.info;
  }
  getProperty(name: string): string | null {
    return Object.hasOwn(this.properties, name) ? this.properties[name] : null;
  }
  getPropertyNames(): string[] {
    return Object.keys(this.properties);
  }
  getSupportedPortletModes(): PortletMode[] {
    return [...MODES];
  }
  getSupportedWindowStates(): WindowState[] {
    return [...STATES];
  }
}

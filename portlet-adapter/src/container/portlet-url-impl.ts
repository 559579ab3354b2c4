import { PortletModeException, PortletSecurityException, WindowStateException } from '../api/exceptions';
import type { PortletMode } from '../api/portlet-mode';
import type { PortletRequest } from '../api/portlet-request';
import type { PortletURL } from '../api/portlet-url';
import type { WindowState } from '../api/window-state';
import { NO_PARAMETERS, toParameters, withParameter, type Parameters } from './parameters';
import type { PortletURLProvider } from './services';

/**
 * A render or action URL of one window. Mode and state default to the window's current ones; the
 * string is made by the portal's URL codec, so every other window keeps its render state.
 */
export class PortletURLImpl implements PortletURL {
  #parameters: Parameters = NO_PARAMETERS;
  #mode: PortletMode;
  #state: WindowState;
  #secure = false;

  constructor(
    private readonly kind: 'render' | 'action',
    private readonly windowId: string,
    private readonly request: PortletRequest,
    private readonly provider: PortletURLProvider,
  ) {
    this.#mode = request.getPortletMode();
    this.#state = request.getWindowState();
  }

  setParameter(name: string, value: string | readonly string[]): void {
    this.#parameters = withParameter(this.#parameters, name, value);
  }

  setParameters(parameters: Readonly<Record<string, string | readonly string[]>>): void {
    this.#parameters = toParameters(parameters);
  }

  setPortletMode(mode: PortletMode): void {
    if (!this.request.isPortletModeAllowed(mode)) throw new PortletModeException(`portlet mode "${String(mode)}" is not allowed here`, mode);
    this.#mode = mode;
  }

  setWindowState(state: WindowState): void {
    if (!this.request.isWindowStateAllowed(state)) throw new WindowStateException(`window state "${String(state)}" is not supported`, state);
    this.#state = state;
  }

  setSecure(secure: boolean): void {
    if (secure && !this.provider.secureSupported) throw new PortletSecurityException('this portal is not served over TLS');
    this.#secure = secure;
  }

  toString(): string {
    return this.provider.createURL(this.windowId, { kind: this.kind, mode: this.#mode, state: this.#state, parameters: this.#parameters, secure: this.#secure });
  }
}

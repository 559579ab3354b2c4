import type { ActionResponse } from '../api/action-response';
import { IllegalArgumentException, IllegalStateException, PortletModeException, WindowStateException } from '../api/exceptions';
import type { PortletMode } from '../api/portlet-mode';
import type { PortletRequest } from '../api/portlet-request';
import type { WindowState } from '../api/window-state';
import { NO_PARAMETERS, toParameters, withParameter, type Parameters } from './parameters';
import type { PortletURLProvider } from './services';

/** What an action decided: the window's next render state, or a redirect. */
export type ActionResult =
  | { kind: 'render'; mode: PortletMode; state: WindowState; parameters: Parameters }
  | { kind: 'redirect'; location: string };

/**
 * JSR-168 PLT.12.2: render parameters, mode and state on one side and `sendRedirect` on the other
 * exclude each other. Render parameters the action does not set are cleared.
 */
export class ActionResponseImpl implements ActionResponse {
  #parameters: Parameters = NO_PARAMETERS;
  #mode: PortletMode | undefined;
  #state: WindowState | undefined;
  #renderSet = false;
  #redirect: string | undefined;

  constructor(
    private readonly request: PortletRequest,
    private readonly provider: PortletURLProvider,
  ) {}

  setRenderParameter(name: string, value: string | readonly string[]): void {
    this.#notRedirected();
    this.#parameters = withParameter(this.#parameters, name, value);
    this.#renderSet = true;
  }

  setRenderParameters(parameters: Readonly<Record<string, string | readonly string[]>>): void {
    this.#notRedirected();
    this.#parameters = toParameters(parameters);
    this.#renderSet = true;
  }

  setPortletMode(mode: PortletMode): void {
    this.#notRedirected();
    if (!this.request.isPortletModeAllowed(mode)) throw new PortletModeException(`portlet mode "${String(mode)}" is not allowed here`, mode);
    this.#mode = mode;
    this.#renderSet = true;
  }

  setWindowState(state: WindowState): void {
    this.#notRedirected();
    if (!this.request.isWindowStateAllowed(state)) throw new WindowStateException(`window state "${String(state)}" is not supported`, state);
    this.#state = state;
    this.#renderSet = true;
  }

  sendRedirect(location: string): void {
    if (this.#renderSet) throw new IllegalStateException('sendRedirect() after render parameters, mode or state were set');
    if (typeof location !== 'string' || !this.provider.isOwnLocation(location)) {
      throw new IllegalArgumentException('sendRedirect() takes a path of the portal\'s own origin');
    }
    this.#redirect = location;
  }

  setProperty(_name: string, _value: string): void {}
  addProperty(_name: string, _value: string): void {}

  encodeURL(path: string): string {
    return this.provider.encodeURL(path);
  }

  result(): ActionResult {
    if (this.#redirect !== undefined) return { kind: 'redirect', location: this.#redirect };
    return {
      kind: 'render',
      mode: this.#mode ?? this.request.getPortletMode(),
      state: this.#state ?? this.request.getWindowState(),
      parameters: this.#parameters,
    };
  }

  #notRedirected(): void {
    if (this.#redirect !== undefined) throw new IllegalStateException('render parameters, mode or state after sendRedirect()');
  }
}

import type { ActionRequest } from './action-request';
import type { ActionResponse } from './action-response';
import { PortletException, PortletModeException } from './exceptions';
import type { Portlet } from './portlet';
import type { PortletConfig, ResourceBundle } from './portlet-config';
import type { PortletContext } from './portlet-context';
import { PortletMode } from './portlet-mode';
import type { RenderRequest } from './render-request';
import type { RenderResponse } from './render-response';
import { WindowState } from './window-state';

/**
 * `javax.portlet.GenericPortlet`: `render` sets the title and, unless the window is minimized,
 * dispatches by mode to `doView`, `doEdit` or `doHelp` (another mode is `PortletModeException`).
 * Override `init(config)` with `await super.init(config)` first, as a Java portlet calls
 * `super.init(config)`.
 *
 * @example
 *   export class Hello extends GenericPortlet {
 *     protected override doView(req: RenderRequest, res: RenderResponse): void {
 *       res.setContentType('text/html');
 *       res.getWriter().write(`<p class="portlet-font">Hello</p>`);
 *     }
 *   }
 */
export abstract class GenericPortlet implements Portlet, PortletConfig {
  #config: PortletConfig | undefined;

  init(config: PortletConfig): void | Promise<void> {
    this.#config = config;
  }

  /** The default refuses: a portlet with actions overrides it. */
  processAction(_request: ActionRequest, _response: ActionResponse): void | Promise<void> {
    throw new PortletException('processAction method not implemented');
  }

  async render(request: RenderRequest, response: RenderResponse): Promise<void> {
    response.setTitle(this.getTitle(request));
    if (!request.getWindowState().equals(WindowState.MINIMIZED)) await this.doDispatch(request, response);
  }

  destroy(): void | Promise<void> {}

  protected async doDispatch(request: RenderRequest, response: RenderResponse): Promise<void> {
    const mode = request.getPortletMode();
    if (mode.equals(PortletMode.VIEW)) return this.doView(request, response);
    if (mode.equals(PortletMode.EDIT)) return this.doEdit(request, response);
    if (mode.equals(PortletMode.HELP)) return this.doHelp(request, response);
    throw new PortletModeException(`unknown portlet mode: ${mode.toString()}`, mode);
  }

  protected doView(_request: RenderRequest, _response: RenderResponse): void | Promise<void> {
    throw new PortletException('doView method not implemented');
  }

  protected doEdit(_request: RenderRequest, _response: RenderResponse): void | Promise<void> {
    throw new PortletException('doEdit method not implemented');
  }

  protected doHelp(_request: RenderRequest, _response: RenderResponse): void | Promise<void> {
    throw new PortletException('doHelp method not implemented');
  }

  /** The descriptor's title (`javax.portlet.title`). */
  protected getTitle(request: RenderRequest): string {
    return this.getResourceBundle(request.getLocale())['javax.portlet.title'] ?? this.getPortletName();
  }

  getPortletConfig(): PortletConfig {
    if (this.#config === undefined) throw new PortletException('the portlet is not initialised: call super.init(config)');
    return this.#config;
  }

  getPortletName(): string {
    return this.getPortletConfig().getPortletName();
  }

  getPortletContext(): PortletContext {
    return this.getPortletConfig().getPortletContext();
  }

  getResourceBundle(locale: string): ResourceBundle {
    return this.getPortletConfig().getResourceBundle(locale);
  }

  getInitParameter(name: string): string | null {
    return this.getPortletConfig().getInitParameter(name);
  }

  getInitParameterNames(): string[] {
    return this.getPortletConfig().getInitParameterNames();
  }
}

import type { ActionRequest } from './action-request';
import type { ActionResponse } from './action-response';
import type { PortletConfig } from './portlet-config';
import type { RenderRequest } from './render-request';
import type { RenderResponse } from './render-response';

/**
 * `javax.portlet.Portlet`. The container makes one instance per portlet definition, calls `init`
 * once before any request, `processAction` for an action aimed at one of its windows, `render` for
 * every visible window of a page, and `destroy` once at shutdown (or when the portlet is taken out
 * by a permanent `UnavailableException`). One instance serves every user and window at once: keep
 * per-user state in the `PortletSession` or the preferences, never in fields.
 *
 * A failed `init` takes the portlet out without `destroy`.
 */
export interface Portlet {
  init(config: PortletConfig): void | Promise<void>;
  processAction(request: ActionRequest, response: ActionResponse): void | Promise<void>;
  render(request: RenderRequest, response: RenderResponse): void | Promise<void>;
  destroy(): void | Promise<void>;
}

/** What a descriptor's `module` must export: a class with a no-argument constructor. */
export type PortletClass = new () => Portlet;

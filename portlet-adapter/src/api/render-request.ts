import type { PortletRequest } from './portlet-request';

/** `javax.portlet.RenderRequest`: a request to `render`; its parameters are the window's render parameters. */
export type RenderRequest = PortletRequest;

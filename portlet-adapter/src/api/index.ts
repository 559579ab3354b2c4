/**
 * The portlet API (SPEC 10.1): JSR-168's `javax.portlet` with Java types made TypeScript. It
 * imports nothing of the container or the portal, and of svc only common/src/cross-copy-identity.ts
 * (dependency-free): a portlet depends on this folder only.
 */
export type { ActionRequest } from './action-request';
export type { ActionResponse } from './action-response';
export {
  IllegalArgumentException,
  IllegalStateException,
  PortletException,
  PortletModeException,
  PortletSecurityException,
  ReadOnlyException,
  UnavailableException,
  ValidatorException,
  WindowStateException,
} from './exceptions';
export { GenericPortlet } from './generic-portlet';
export type { PortalContext } from './portal-context';
export type { Portlet, PortletClass } from './portlet';
export type { PortletConfig, ResourceBundle } from './portlet-config';
export type { PortletContext } from './portlet-context';
export { PortletMode } from './portlet-mode';
export type { PortletPreferences } from './portlet-preferences';
export { PortletRequest, type ParameterMap, type Principal } from './portlet-request';
export type { PortletResponse } from './portlet-response';
export { PortletSession } from './portlet-session';
export type { PortletURL } from './portlet-url';
export type { PreferencesValidator, PreferencesValidatorClass } from './preferences-validator';
export type { RenderRequest } from './render-request';
export { RenderResponse, type PortletWriter } from './render-response';
export { P3P_USER_ATTRIBUTES } from './user-info';
export { WindowState } from './window-state';

import type { PortalContext } from './portal-context';
import type { PortletMode } from './portlet-mode';
import type { PortletPreferences } from './portlet-preferences';
import type { PortletSession } from './portlet-session';
import type { WindowState } from './window-state';

/** A request or render parameter map: read-only; every name has one or more values. */
export type ParameterMap = Readonly<Record<string, readonly string[]>>;

/** `java.security.Principal`. */
export interface Principal {
  getName(): string;
}

/**
 * `javax.portlet.PortletRequest`: what every phase sees.
 *
 * Parameters: `processAction` sees the action's parameters (the action URL's and the posted form's);
 * `render` sees the window's render parameters, which persist until the next action or render URL
 * aimed at that window. Action parameters are never seen by render.
 */
export interface PortletRequest {
  /** The portal user's principal (`contextId/uniqueId` of the svc subject); null for a visitor. */
  getUserPrincipal(): Principal | null;
  getRemoteUser(): string | null;
  /** Through the descriptor's `securityRoleRefs` (`roleName` → `roleLink`); false for a visitor. */
  isUserInRole(role: string): boolean;
  /** `PortletRequest.FORM_AUTH` for a logged-in user, null for a visitor. */
  getAuthType(): string | null;
  isSecure(): boolean;
  getLocale(): string;
  getLocales(): string[];
  getScheme(): string;
  getServerName(): string;
  getServerPort(): number;
  getContextPath(): string;
  getPortalContext(): PortalContext;
  getPortletMode(): PortletMode;
  getWindowState(): WindowState;
  isPortletModeAllowed(mode: PortletMode): boolean;
  isWindowStateAllowed(state: WindowState): boolean;
  getParameter(name: string): string | null;
  getParameterValues(name: string): readonly string[] | null;
  getParameterNames(): string[];
  getParameterMap(): ParameterMap;
  getPreferences(): PortletPreferences;
  /** `create` (default true): a session is made when there is none; false answers null then. */
  getPortletSession(create?: boolean): PortletSession | null;
  /**
   * Request attributes: `PortletRequest.USER_INFO` (the user's attributes by P3P name, only those
   * the descriptor declares; null for a visitor), and what the portal provides (svc's gateway
   * client, see `gateway-client.ts`).
   */
  getAttribute(name: string): unknown;
  getAttributeNames(): string[];
  setAttribute(name: string, value: unknown): void;
  removeAttribute(name: string): void;
  /** A request header the portal passes on (never `Cookie` or `Authorization`). */
  getProperty(name: string): string | null;
  getPropertyNames(): string[];
  getResponseContentType(): string;
  getResponseContentTypes(): string[];
  /** The portal session's handle (not a credential). */
  getRequestedSessionId(): string | null;
  isRequestedSessionIdValid(): boolean;
}

export const PortletRequest = {
  /** Request attribute: `Record<string, string>` of the user's attributes by P3P name, or null. */
  USER_INFO: 'javax.portlet.userinfo',
  BASIC_AUTH: 'BASIC',
  FORM_AUTH: 'FORM',
  CLIENT_CERT_AUTH: 'CLIENT_CERT',
  DIGEST_AUTH: 'DIGEST',
} as const;

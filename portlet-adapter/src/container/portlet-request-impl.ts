import type { PortalContext } from '../api/portal-context';
import { IllegalArgumentException } from '../api/exceptions';
import type { PortletContext } from '../api/portlet-context';
import type { PortletMode } from '../api/portlet-mode';
import type { PortletPreferences } from '../api/portlet-preferences';
import { PortletRequest, type ParameterMap, type Principal } from '../api/portlet-request';
import type { PortletSession } from '../api/portlet-session';
import type { WindowState } from '../api/window-state';
import type { PortletDefinition } from './descriptor/types';
import type { Parameters } from './parameters';
import { PortletSessionImpl } from './portlet-session-impl';
import type { PortalRequest } from './services';
import type { PortletWindow } from './window';

export interface RequestParts {
  definition: PortletDefinition;
  window: PortletWindow;
  mode: PortletMode;
  state: WindowState;
  /** Action parameters in the action phase, render parameters in the render phase. */
  parameters: Parameters;
  portal: PortalRequest;
  preferences: PortletPreferences;
  portletContext: PortletContext;
  portalContext: PortalContext;
  /** `PortletRequest.USER_INFO`: null for a visitor. */
  userInfo: Readonly<Record<string, string>> | null;
}

/** What both phases share (Pluto's PortletRequestImpl). */
export class PortletRequestImpl implements PortletRequest {
  readonly #attributes = new Map<string, unknown>();
  #session: PortletSessionImpl | undefined;

  constructor(protected readonly parts: RequestParts) {
    for (const [name, value] of Object.entries(parts.portal.attributes)) this.#attributes.set(name, value);
    this.#attributes.set(PortletRequest.USER_INFO, parts.userInfo);
  }

  getUserPrincipal(): Principal | null {
    const user = this.parts.portal.user;
    return user === null ? null : Object.freeze({ getName: () => user.name, toString: () => user.name });
  }

  getRemoteUser(): string | null {
    return this.parts.portal.user?.name ?? null;
  }

  isUserInRole(role: string): boolean {
    const user = this.parts.portal.user;
    if (user === null) return false;
    const ref = this.parts.definition.securityRoleRefs.find((r) => r.roleName === role);
    return user.roles.includes(ref?.roleLink ?? role);
  }

  getAuthType(): string | null {
    return this.parts.portal.user === null ? null : PortletRequest.FORM_AUTH;
  }

  isSecure(): boolean {
    return this.parts.portal.secure;
  }
  getLocale(): string {
    return this.parts.portal.locales[0];
  }
  getLocales(): string[] {
    return [...this.parts.portal.locales];
  }
  getScheme(): string {
    return this.parts.portal.scheme;
  }
  getServerName(): string {
    return this.parts.portal.serverName;
  }
  getServerPort(): number {
    return this.parts.portal.serverPort;
  }
  getContextPath(): string {
    return this.parts.portal.contextPath;
  }
  getPortalContext(): PortalContext {
    return this.parts.portalContext;
  }
  getPortletMode(): PortletMode {
    return this.parts.mode;
  }
  getWindowState(): WindowState {
    return this.parts.state;
  }

  isPortletModeAllowed(mode: PortletMode): boolean {
    return isModeAllowed(this.parts.definition, this.parts.portalContext, mode);
  }

  isWindowStateAllowed(state: WindowState): boolean {
    return this.parts.portalContext.getSupportedWindowStates().some((s) => s.equals(state));
  }

  getParameter(name: string): string | null {
    return this.getParameterValues(name)?.[0] ?? null;
  }

  getParameterValues(name: string): readonly string[] | null {
    if (typeof name !== 'string') throw new IllegalArgumentException('a parameter name must be a string');
    return Object.hasOwn(this.parts.parameters, name) ? this.parts.parameters[name] : null;
  }

  getParameterNames(): string[] {
    return Object.keys(this.parts.parameters);
  }

  getParameterMap(): ParameterMap {
    return this.parts.parameters;
  }

  getPreferences(): PortletPreferences {
    return this.parts.preferences;
  }

  getPortletSession(create = true): PortletSession | null {
    if (this.#session !== undefined) return this.#session;
    const access = this.parts.portal.session;
    const existing = access.current();
    if (existing === undefined && !create) return null;
    this.#session = new PortletSessionImpl(access, this.parts.window.id, this.parts.portletContext, existing === undefined);
    return this.#session;
  }

  getAttribute(name: string): unknown {
    return this.#attributes.get(name) ?? null;
  }
  getAttributeNames(): string[] {
    return [...this.#attributes.keys()];
  }
  setAttribute(name: string, value: unknown): void {
    if (typeof name !== 'string') throw new IllegalArgumentException('an attribute name must be a string');
    if (value === null || value === undefined) this.#attributes.delete(name);
    else this.#attributes.set(name, value);
  }
  removeAttribute(name: string): void {
    this.#attributes.delete(name);
  }

  getProperty(name: string): string | null {
    const properties = this.parts.portal.properties;
    const key = String(name).toLowerCase();
    return Object.hasOwn(properties, key) ? properties[key] : null;
  }
  getPropertyNames(): string[] {
    return Object.keys(this.parts.portal.properties);
  }

  getResponseContentType(): string {
    return 'text/html';
  }
  getResponseContentTypes(): string[] {
    return ['text/html'];
  }

  getRequestedSessionId(): string | null {
    return this.parts.portal.session.current()?.id ?? null;
  }
  isRequestedSessionIdValid(): boolean {
    return this.parts.portal.session.current() !== undefined;
  }
}

/** A mode the portlet declares for text/html and the portal supports. */
export function isModeAllowed(definition: PortletDefinition, portal: PortalContext, mode: PortletMode): boolean {
  const declared = definition.supports.find((s) => s.mimeType === 'text/html')?.modes ?? ['view'];
  return declared.some((m) => mode.equals(m)) && portal.getSupportedPortletModes().some((m) => m.equals(mode));
}

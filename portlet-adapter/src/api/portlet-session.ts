import type { PortletContext } from './portlet-context';

/**
 * `javax.portlet.PortletSession`, kept inside the portal session and ended with it.
 *
 * - `PORTLET_SCOPE` (the default): private to one portlet window; stored in the application session
 *   under `javax.portlet.p.<windowId>?<name>`, so two windows of the same portlet never see each
 *   other's attributes.
 * - `APPLICATION_SCOPE`: shared by every portlet of the application for this portal session.
 *
 * Values live in the portal's memory: keep them small. For a visitor, nothing is kept on the
 * server until the first `setAttribute`.
 */
export interface PortletSession {
  getAttribute(name: string, scope?: number): unknown;
  getAttributeNames(scope?: number): string[];
  setAttribute(name: string, value: unknown, scope?: number): void;
  removeAttribute(name: string, scope?: number): void;
  /** Ends the application's session: every window's attributes, both scopes. The portal login stays. */
  invalidate(): void;
  isNew(): boolean;
  getId(): string;
  /** Milliseconds since the epoch. */
  getCreationTime(): number;
  getLastAccessedTime(): number;
  /** Seconds. */
  getMaxInactiveInterval(): number;
  setMaxInactiveInterval(seconds: number): void;
  getPortletContext(): PortletContext;
}

export const PortletSession = {
  APPLICATION_SCOPE: 0x01,
  PORTLET_SCOPE: 0x02,
} as const;

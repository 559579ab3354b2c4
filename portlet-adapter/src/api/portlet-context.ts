/**
 * `javax.portlet.PortletContext`: the portlet application (one `portlet.json`) as its portlets see
 * it. Attributes set here are shared by every portlet of the application, for every user: nothing
 * personal belongs in them.
 */
export interface PortletContext {
  getServerInfo(): string;
  getPortletContextName(): string;
  /** 1 and 0: the JSR-168 API this container follows. */
  getMajorVersion(): number;
  getMinorVersion(): number;
  getAttribute(name: string): unknown;
  setAttribute(name: string, value: unknown): void;
  removeAttribute(name: string): void;
  getAttributeNames(): string[];
  getInitParameter(name: string): string | null;
  getInitParameterNames(): string[];
  /** One JSON log line of the portal, naming the application; never pass secrets. */
  log(message: string, error?: unknown): void;
}

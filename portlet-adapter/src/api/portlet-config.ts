import type { PortletContext } from './portlet-context';

/**
 * The resource bundle of JSR-168 PLT.6.2 reduced to its three standard keys, taken from the
 * descriptor: `javax.portlet.title`, `javax.portlet.short-title`, `javax.portlet.keywords`.
 */
export type ResourceBundle = Readonly<Record<string, string>>;

/** `javax.portlet.PortletConfig`: one portlet definition of the descriptor, as the portlet sees it. */
export interface PortletConfig {
  getPortletName(): string;
  getPortletContext(): PortletContext;
  getResourceBundle(locale: string): ResourceBundle;
  getInitParameter(name: string): string | null;
  getInitParameterNames(): string[];
}

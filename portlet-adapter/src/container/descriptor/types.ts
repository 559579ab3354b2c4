/**
 * `portlet.json`, the role of JSR-168's `portlet.xml` (SPEC 10.1): one portlet application, its
 * portlets and their defaults. What load.ts returns: validated, defaults filled, frozen.
 */
export interface PreferenceDefinition {
  name: string;
  values: readonly (string | null)[];
  readOnly: boolean;
}

export interface SupportsDefinition {
  mimeType: string;
  /** Lower-case mode names; `view` is always among them. */
  modes: readonly string[];
}

export interface SecurityRoleRef {
  roleName: string;
  /** The portal role (an svc role) the name stands for; when absent the name itself is the role. */
  roleLink?: string;
}

export interface PortletDefinition {
  name: string;
  /** Module specifier (relative to the descriptor, or a package), with `#Export` (default: `default`). */
  module: string;
  title: string;
  shortTitle?: string;
  keywords?: string;
  initParams: Readonly<Record<string, string>>;
  supports: readonly SupportsDefinition[];
  preferences: readonly PreferenceDefinition[];
  preferencesValidator?: string;
  securityRoleRefs: readonly SecurityRoleRef[];
  /** The P3P user attribute names the portlet reads through `PortletRequest.USER_INFO`. */
  userAttributes: readonly string[];
  /** Seconds: 0 off, -1 until an action targets the window. */
  expirationCache: number;
}

export interface PortletApplicationDescriptor {
  /** The application's name (`PortletContext.getPortletContextName`). */
  application: string;
  /** `PortletContext.getInitParameter`. */
  initParams: Readonly<Record<string, string>>;
  portlets: readonly PortletDefinition[];
}

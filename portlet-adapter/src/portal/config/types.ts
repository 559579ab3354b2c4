/** The portal's configuration (SPEC 10.2): `{"portal": {…}}` in one JSON file. */
import type { LogSettings } from '../../../../common/src/request-log-settings';

export type VisitorRule = 'only' | 'also' | 'never';

export interface WindowConfig {
  /** Unique on its page; `[A-Za-z][A-Za-z0-9_]*` (it becomes the namespace `svc_<id>_`). */
  id: string;
  /** A portlet `name` of the descriptor. */
  portlet: string;
  /** Initial mode and state (what a URL that says nothing means). */
  mode: 'view' | 'edit' | 'help';
  state: 'normal' | 'maximized' | 'minimized';
  /** Empty: every user; else a user with one of these svc roles. */
  roles: readonly string[];
  /** Whether visitors (not logged in) see it: only them, them too, or never. */
  visitors: VisitorRule;
}

export interface PageConfig {
  id: string;
  title: string;
  /** Empty: everyone, visitors included; else a user with one of these svc roles. */
  roles: readonly string[];
  windows: readonly WindowConfig[];
}

export interface PortalConfig {
  host: string;
  port: number;
  /** The portal's path, e.g. `/portal`. */
  root: string;
  /** The origin browsers use (`https://portal.example.org`): action posts must come from it. Default: from host and port. */
  publicOrigin: string;
  /** Addresses (CIDRs) whose `X-Forwarded-For` counts for the visitor's address. */
  trustProxy: readonly string[];
  /**
   * Query parameter names the REST pass-through strips beside svc's defaults (`clientid`,
   * `clientcred`, `user`, `password`, `token`): the core's renamed `auth.token.name.*`.
   */
  credentialParameters: readonly string[];
  /** `{gw}` of each gateway. */
  gateways: readonly string[];
  portalId: string;
  secret: string;
  /** Where `portal.db` (preferences) lives. */
  dataDir: string;
  /** Path of `portlet.json` (relative to the configuration file). */
  descriptor: string;
  /** The portal's name in the page header. */
  title: string;
  sessionIdleSeconds: number;
  sessionAbsoluteSeconds: number;
  /** Most logged-in portal sessions; beyond it a login is refused with 503 (none is evicted). */
  maxSessions: number;
  /** Most portal sessions of one principal; a login beyond it ends that principal's oldest (SPEC 10.2). */
  maxSessionsPerPrincipal: number;
  /** How long one window's phase may take (SPEC 10.2: 5 s). */
  renderTimeoutMs: number;
  gatewayTimeoutMs: number;
  /** Largest action body. */
  bodyLimit: number;
  /** `log.requests`: which requests get a log line (common/src/request-log-settings.ts). */
  log: LogSettings;
  /** `PortletRequest.USER_INFO`: P3P name → the svc attribute it is read from. */
  userInfo: Readonly<Record<string, string>>;
  pages: readonly PageConfig[];
}

import type { PortletContainer } from '../container/portlet-container';
import type { GatewayClient } from '../gateway-client';
import type { PageConfig, PortalConfig } from './config/types';
import type { Csrf } from './csrf';
import type { Identities } from './identity';
import type { Logger, PortalMetrics } from './observability';
import type { PortalSessionStore } from './session-store';

/** What the portal's routes share: made once by startPortal. */
export interface PortalDeps {
  config: PortalConfig;
  /** Known once listening when the configuration gives none and the port is 0. */
  publicOrigin: () => string;
  /** Served to browsers over TLS (publicOrigin is https): cookies get `Secure`. */
  secure: boolean;
  container: PortletContainer;
  identities: Identities;
  sessions: PortalSessionStore;
  csrf: Csrf;
  gateway: GatewayClient;
  metrics: PortalMetrics;
  log: Logger;
  pages: ReadonlyMap<string, PageConfig>;
}

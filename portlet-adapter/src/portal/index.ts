/**
 * The portal driver `svc portal` (SPEC 10.2, after Apache Pluto's `pluto-portal-driver`):
 * `startPortal(config)` loads `portlet.json`, starts the container (every portlet's `init`),
 * listens, and resolves `{url, baseUrl, close}`; `close` stops listening and destroys the portlets.
 */
import http from 'node:http';
import { join } from 'node:path';
import { loadPortletApplication } from '../container/descriptor/load';
import { PortletContainer } from '../container/portlet-container';
import { PortalPreferencesService } from '../container/preferences/portal-preferences-service';
import { SqlitePreferencesStore } from '../container/preferences/sqlite-preferences-store';
import { GatewayClient } from '../gateway-client';
import { createPortalApp } from './app';
import { PortalConfigError, checkAgainstDescriptor } from './config/load';
import type { PortalConfig } from './config/types';
import { Csrf } from './csrf';
import type { PortalDeps } from './deps';
import { Identities } from './identity';
import { PortalKeys } from './keys';
import { PortalMetrics, audit, createPortalLogger, type Logger } from './observability';
import { SvcPortalContext } from './portal-context';
import { PortalSessionStore } from './session-store';
import { GatewayUserInfo } from './user-info';
import { VisitorCookies } from './visitor-cookie';
import { expressServerOptions } from '../../../common/src/http/express-prototypes';
import { guardServer, listen } from '../../../common/src/http/listen';

export { buildPortalConfig, checkAgainstDescriptor, loadPortalConfigFile, PortalConfigError } from './config/load';
export { portalConfigSchema } from './config/schema';
export { PORTAL_DEFAULTS } from './config/defaults';
export type { PortalConfig, PageConfig, WindowConfig } from './config/types';

export interface PortalOptions {
  logger?: Logger;
  /** Process-wide default metrics (off when several servers share a process, e.g. in tests). */
  defaultMetrics?: boolean;
  now?: () => number;
}

export interface RunningPortal {
  /** `http://host:port` */
  url: string;
  /** `{portal}`: the URL including the root. */
  baseUrl: string;
  deps: PortalDeps;
  close(): Promise<void>;
}

export async function startPortal(config: PortalConfig, options: PortalOptions = {}): Promise<RunningPortal> {
  const log = options.logger ?? createPortalLogger();
  const application = await loadPortletApplication(config.descriptor);
  const problems = checkAgainstDescriptor(config, application.descriptor);
  if (problems.length) throw new PortalConfigError(problems);

  const store = new SqlitePreferencesStore(join(config.dataDir, 'portal.db'));
  const sessions = new PortalSessionStore({
    idleSeconds: config.sessionIdleSeconds,
    absoluteSeconds: config.sessionAbsoluteSeconds,
    maxSessions: config.maxSessions,
    maxSessionsPerPrincipal: config.maxSessionsPerPrincipal,
    now: options.now,
  });
  const gateway = new GatewayClient({
    gateways: config.gateways,
    portalId: config.portalId,
    secret: config.secret,
    timeoutMs: config.gatewayTimeoutMs,
    // svc revoked a portal session's core session: that portal session ends (SPEC 10.2).
    onSessionRevoked: (principal) => {
      const ended = principal.user && sessions.endByHandle(principal.user, principal.visitor);
      if (ended) audit(log, { event: 'portal_session_end', outcome: 'success', reason: 'session_revoked', user: ended.name, session: ended.handle });
    },
  });
  let container: PortletContainer;
  try {
    container = await PortletContainer.start(
      application,
      { portalContext: new SvcPortalContext('svc-portal/0.1.0'), preferences: new PortalPreferencesService(store), userInfo: new GatewayUserInfo(config.userInfo, log), log },
      { timeLimitMs: config.renderTimeoutMs, now: options.now },
    );
  } catch (error) {
    store.close();
    await gateway.close();
    throw error;
  }

  let publicOrigin = config.publicOrigin;
  const keys = new PortalKeys(config.secret);
  const secure = publicOrigin.startsWith('https:');
  const csrf = new Csrf(keys.csrf, () => publicOrigin);
  const visitors = new VisitorCookies(keys.visitorCookie, config.sessionAbsoluteSeconds);
  const identities = new Identities({ root: config.root, secure, sessions, visitors, csrf, idleSeconds: config.sessionIdleSeconds, now: options.now });
  const metrics = new PortalMetrics({ sessions: () => sessions.size }, options.defaultMetrics ?? true);
  const deps: PortalDeps = {
    config,
    publicOrigin: () => publicOrigin,
    secure,
    container,
    identities,
    sessions,
    csrf,
    gateway,
    metrics,
    log,
    pages: new Map(config.pages.map((p) => [p.id, p])),
  };
  const app = createPortalApp(deps, async () => store.ping() && (await gateway.ready()));
  // Requests and responses are born express objects: express's per-request prototype swap is the
  // costliest step of a small request (common/src/http/express-prototypes.ts).
  const server = http.createServer(expressServerOptions(app), app);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 60_000;
  guardServer(server, 30_000);
  const url = await listen(server, config.port, config.host);
  if (config.port === 0 && publicOrigin.endsWith(':0')) publicOrigin = url;
  const sweeper = setInterval(() => sessions.sweep(), 60_000);
  sweeper.unref();
  log.info({ url, root: config.root, publicOrigin, gateways: config.gateways, portlets: application.descriptor.portlets.map((p) => p.name) }, 'portal listening');
  return {
    url,
    baseUrl: url + config.root,
    deps,
    async close() {
      clearInterval(sweeper);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await container.destroy();
      store.close();
      await gateway.close();
    },
  };
}

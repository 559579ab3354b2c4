import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { ConfigError, loadConfigFile } from './config/load';
import type { SvcConfig } from './config/types';
import { NO_PARTIES, type AuditParties } from './audit';
import { Core, type CoreOptions } from './core';
import { createCoreHttp } from './http/listener';
import { servicesOf, type ReloadResult } from './http/services';
import { guardServer, listen } from '../../common/src/http/listen';
import { assertCoreStoresShared } from './workers';

export interface RunningServer {
  core: Core;
  server: http.Server;
  /** `http://host:port` */
  url: string;
  /** `{base}`: the URL including the context root. */
  baseUrl: string;
  /** Reloads the configuration file (by default the one it started from); a bad file is refused and the running one stays. */
  reload(path?: string, by?: AuditParties): ReloadResult;
  close(): Promise<void>;
}

export interface ServerOptions extends CoreOptions {
  /** The file the configuration came from: SIGHUP and POST {base}/config/reload read it again. */
  configPath?: string;
  /** After a successful POST {base}/config/reload (a worker has its siblings reload too). */
  onHttpReload?: () => void;
  /**
   * N when this process is a worker of `--workers N`: a reload is refused like the start would be
   * when it names a store the workers would not share (each would keep its own data).
   */
  workers?: number;
  /** What POST {base}/config/reload does in a server started without a file (a test's stand-in for the file's reload). */
  reload?: (by: AuditParties) => ReloadResult;
}

/**
 * node's timeouts from `server.timeouts` (seconds). node checks them every
 * `connectionsCheckingInterval` (30 s by default, which would let a slow client hold a connection
 * that long past its limit): a tenth of the shorter limit, at least 100 ms.
 */
function connectionLimits(settings: SvcConfig['server']): http.ServerOptions {
  const { headers, request } = settings.timeouts;
  const headersTimeout = Math.round(Math.min(headers, request) * 1000);
  const requestTimeout = Math.round(request * 1000);
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.max(100, Math.round(headersTimeout / 10)) };
}

/**
 * The HTTPS certificate and, with `tls.clientCA`, the CAs a client certificate may come from (the
 * handshake asks for one but does not require it: the certificate authenticator checks it, CRL
 * included, and a request without one is an ordinary request).
 */
function tlsOptions(core: Core, files = serverCertificate(core.config)): https.ServerOptions {
  return { ...files, ...(core.clientCertificates ? { ca: core.clientCertificates.caCertificates } : {}) };
}

function serverCertificate(config: SvcConfig): { cert: Buffer; key: Buffer } {
  const tls = config.server.tls!;
  return { cert: readFileSync(tls.cert!), key: readFileSync(tls.key!) };
}

/** Starts the core server on `config.server` (port 0 picks a free one) and resolves once it listens. */
export async function startServer(config: SvcConfig, options: ServerOptions = {}): Promise<RunningServer> {
  const core = new Core(config, options);
  try {
    await core.open();
  } catch (error) {
    await core.close();
    throw error;
  }
  await core.hasher.ready();
  // Only the process that read a configuration file can reload it (bin/svc.ts); a demo or test server has none.
  const reloadFromFile = options.configPath
    ? (by: AuditParties): ReloadResult => {
        const result = running.reload(undefined, by);
        if (result.ok) options.onHttpReload?.();
        return result;
      }
    : options.reload;
  const { options: httpOptions, listener } = createCoreHttp(servicesOf(core, reloadFromFile));
  const tls = config.server.tls;
  const limits = connectionLimits(config.server);
  const server = tls?.cert
    ? https.createServer({ ...httpOptions, ...limits, ...tlsOptions(core), requestCert: core.clientCertificates !== undefined, rejectUnauthorized: false }, listener)
    : http.createServer({ ...httpOptions, ...limits }, listener);
  server.keepAliveTimeout = Math.round(config.server.timeouts.keepAlive * 1000);
  server.maxConnections = config.server.maxConnections;
  guardServer(server, limits.headersTimeout!);
  const url = await listen(server, config.server.port, config.server.host, tls?.cert ? 'https' : 'http');
  core.log.info({ url, contextRoot: config.server.contextRoot }, 'core server listening');
  const running: RunningServer = {
    core,
    server,
    url,
    baseUrl: url + config.server.contextRoot,
    reload(path = options.configPath, by = NO_PARTIES) {
      try {
        if (!path) throw new Error('this server was not started from a configuration file');
        const next = loadConfigFile(path);
        if (options.workers !== undefined) assertCoreStoresShared(next, options.workers);
        // Files are read before anything changes: one that cannot be read refuses the whole reload.
        const files = server instanceof https.Server && next.server.tls?.cert ? serverCertificate(next) : undefined;
        core.apply(next);
        // The CAs named in the TLS certificate request follow the reloaded bundle (its CRLs are in core).
        if (files && server instanceof https.Server) server.setSecureContext(tlsOptions(core, files));
        core.audit.record({ ...by, event: 'config_change', outcome: 'success', reason: 'reload' });
        return { ok: true };
      } catch (error) {
        const problems = error instanceof ConfigError ? error.problems : [(error as Error).message];
        core.audit.record({ ...by, event: 'config_change', outcome: 'failure', reason: 'reload_refused', problems });
        return { ok: false, problems };
      }
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await core.close();
    },
  };
  return running;
}

/**
 * The portal-facing gateway (SPEC section 9): `startGateway(config)` listens and resolves
 * `{url, close}`. `url` is the gateway's origin; `{gw}` is `url + config.root`.
 */
import http from 'node:http';
import { Agent } from 'undici';
import type { NonceStore } from '../../common/src/nonce-store';
import { MemoryNonceStore } from '../../common/src/memory-nonce-store';
import type Redis from 'ioredis';
import { openRedis } from '../../common/src/redis/connection';
import { RedisNonceStore } from '../../common/src/redis/redis-nonce-store';
import { assertNoEviction, UnsafeRedis } from '../../common/src/redis/trust';
import { createGatewayHttp } from './app';
import type { GatewayConfig } from './config';
import { SealedCoreLogin, type CoreLogin } from './core-login';
import { CorePool } from './core-pool';
import type { CoreSessions } from './core-sessions';
import { MemoryCoreSessions } from './memory-core-sessions';
import { RedisCoreSessions } from './redis-core-sessions';
import { GatewayMetrics, createGatewayLogger, type Logger } from './observability';
import { VisitorStateSeals } from './visitor-state';
import { PendingSeals } from './pending-seal';
import { guardServer, listen } from '../../common/src/http/listen';
import { visitorAddressSigner } from './visitor-address';
import { credentialParameterTest } from '../../common/src/wire/credential-parameters';

export { buildGatewayConfig, loadGatewayConfigFile, GatewayConfigError, GATEWAY_DEFAULTS, type GatewayConfig } from './config';
export type { CoreLogin } from './core-login';

export interface GatewayOptions {
  logger?: Logger;
  /** The replay cache (default: `gateway.redis`'s when configured, else in memory, this process). */
  nonces?: NonceStore;
  /** How the gateway logs in to a core (default: sealed logins built by the client library). */
  login?: CoreLogin;
  /** Process-wide default metrics (off when several servers share a process, e.g. in tests). */
  defaultMetrics?: boolean;
}

export interface RunningGateway {
  /** `http://host:port` */
  url: string;
  /** `{gw}`: the URL including the root. */
  baseUrl: string;
  metrics: GatewayMetrics;
  pool: CorePool;
  sessions: CoreSessions;
  close(): Promise<void>;
}

/** The cores' session cookie (`http.session.cookie.uniqueid`; the demo's and the default). */
const CORE_COOKIE = 'SVCSESSIONID';

export async function startGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<RunningGateway> {
  const log = options.logger ?? createGatewayLogger();
  const redis = await openSharedState(config);
  const nonces = options.nonces ?? (redis ? new RedisNonceStore(redis, config.redis!.prefix) : new MemoryNonceStore({ maxEntries: config.nonceCacheSize }));
  const metrics = new GatewayMetrics(options.defaultMetrics ?? true);
  const timeoutMs = config.coreTimeoutMs;
  // Keep-alive to the cores; the core timeout holds for every request, logins included.
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 256, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const login = options.login ?? new SealedCoreLogin({ clientId: config.clientId, secret: config.secret, dispatcher, cookieName: CORE_COOKIE });
  const pool = new CorePool(config.cores, { dispatcher, probeIntervalMs: config.probeIntervalMs, timeoutMs, log, metrics });
  const ttlMs = config.sessionTtlSeconds * 1000;
  const sessions: CoreSessions = redis
    ? new RedisCoreSessions({ redis, prefix: config.redis!.prefix, secret: config.secret, login, ttlMs, log, metrics })
    : new MemoryCoreSessions({ login, maxEntries: config.sessionCacheSize, ttlMs, log, metrics });
  const { options: httpOptions, listener } = createGatewayHttp({
    root: config.root,
    cookieName: CORE_COOKIE,
    bodyLimit: config.bodyLimit,
    isCredentialParameter: credentialParameterTest(config.credentialParameters),
    requestLog: config.log,
    login,
    log,
    metrics,
    pool,
    sessions,
    visitorStates: new VisitorStateSeals(config.portals),
    pendings: new PendingSeals(config.portals),
    dispatcher,
    timeoutMs,
    signAddress: visitorAddressSigner(config.clientId, config.secret),
    trust: { portals: config.portals, nonces, log, metrics },
  });
  const server = http.createServer(httpOptions, listener);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = Math.max(30_000, timeoutMs * 3);
  guardServer(server, 30_000);
  const url = await listen(server, config.port, config.host);
  log.info({ url, root: config.root, cores: config.cores }, 'gateway listening');
  return {
    url,
    baseUrl: url + config.root,
    metrics,
    pool,
    sessions,
    async close() {
      pool.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await dispatcher.close();
      // A Redis that is gone would keep quit() (and its reconnection timer) waiting.
      if (redis?.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis?.disconnect();
    },
  };
}

/** The connection to `gateway.redis`, checked as a trust root (a Redis that may evict is refused); none without the section. */
async function openSharedState(config: GatewayConfig): Promise<Redis | undefined> {
  if (!config.redis) return undefined;
  const { url } = config.redis;
  // Auto-pipelining: concurrent requests' nonce writes share round trips. Failures reach callers as ServiceUnavailable.
  const redis = openRedis(config.redis, { enableAutoPipelining: true });
  const what = `gateway.redis (${new URL(url).host})`;
  try {
    await assertNoEviction(redis, what);
  } catch (error) {
    redis.disconnect();
    if (error instanceof UnsafeRedis) throw error;
    throw new Error(`${what} cannot be used: ${(error as Error).message}`, { cause: error });
  }
  return redis;
}

/**
 * How every svc process opens its Redis connection (a core's `sessions.redis`, a gateway's
 * `gateway.redis`): the same options everywhere, so that Redis failing behaves the same everywhere.
 *
 * - `commandTimeoutMs`: a command without an answer by then fails. A Redis that accepts connections
 *   and says nothing (hung, or a network dropping packets) would otherwise hold every request that
 *   needs it for as long as the socket lives; with it, they are refused (503) and the process goes on.
 * - `maxRetriesPerRequest: 2`: while Redis is down, a command waits for at most two reconnection
 *   attempts, then fails (503) instead of queueing without end.
 * - failures never reach an `error` listener as a crash: callers see them as rejected commands.
 */
import Redis, { type RedisOptions } from 'ioredis';
import { DEFAULT_REDIS_COMMAND_TIMEOUT_MS } from './command-timeout';

export interface RedisConnectionSettings {
  url: string;
  password?: string;
  commandTimeoutMs?: number;
}

/** The ioredis options of `settings` (extra options win, e.g. a test's `lazyConnect`). */
export function redisOptions(settings: Omit<RedisConnectionSettings, 'url'>, extra: RedisOptions = {}): RedisOptions {
  return {
    maxRetriesPerRequest: 2,
    connectTimeout: 5000,
    commandTimeout: settings.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
    ...(settings.password === undefined ? {} : { password: settings.password }),
    ...extra,
  };
}

/** A connection to `settings.url`; its `error` events are absorbed (every failure rejects the command that met it). */
export function openRedis(settings: RedisConnectionSettings, extra: RedisOptions = {}): Redis {
  const redis = new Redis(settings.url, redisOptions(settings, extra));
  redis.on('error', () => {});
  return redis;
}

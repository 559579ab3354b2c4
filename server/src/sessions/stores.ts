import type { SvcConfig } from '../config/types';
import { MemorySessionStore } from './memory-session-store';
import type { SessionStore } from './session-store';

/**
 * The one place `sessions.store` becomes a session store: `memory` in this process, bounded by
 * `session.maxSessions`; `redis` shared by every instance on the same Redis and prefix.
 */
export function createSessionStore(config: SvcConfig, now: () => number): SessionStore {
  const maxSessions = config.settings.session.maxSessions;
  if (config.sessions.store === 'memory') return new MemorySessionStore({ maxSessions, now });
  const { url, password, prefix, commandTimeoutMs } = config.sessions.redis;
  // Loaded when configured: every svc process (the CLI's too) would otherwise load ioredis at start.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { RedisSessionStore } = require('./redis-session-store') as typeof import('./redis-session-store');
  return new RedisSessionStore({ url, password, commandTimeoutMs, prefix, maxSessions });
}

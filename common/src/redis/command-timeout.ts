/**
 * Default `commandTimeoutMs` of `sessions.redis` and `gateway.redis`: far above a healthy Redis's
 * answer, short for a person waiting. Apart from connection.ts so that the configuration defaults
 * can name it without loading ioredis in every process.
 */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 2000;

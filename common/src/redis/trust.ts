/**
 * Redis is a trust root (SPEC section 12): it holds sessions, replay caches and counters, so every svc
 * process that uses one (a core's `sessions.redis`, a gateway's `gateway.redis`) checks it the same way.
 *
 * - In the configuration: a password is required unless the URL's host is a loopback address, and a
 *   Redis on another host is reached over TLS (`rediss://`); credentials never sit in the URL (the
 *   password comes from its own setting, usually `${ENV}`, and URLs are shown and logged).
 * - At start: the process refuses a Redis whose `maxmemory-policy` is not `noeviction` (an evicted
 *   nonce is a replay, an evicted counter a free guess). It reads `INFO memory`, which managed Redis
 *   services answer even where `CONFIG` is renamed away.
 */
import type Redis from 'ioredis';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[?::1\]?)$/i;

/** Whether the URL's host is this machine's loopback interface. */
export function isLoopback(url: string): boolean {
  try {
    return LOOPBACK.test(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** The configuration's problems with a Redis `url` and `password` at config path `at`. */
export function redisSettingsProblems(at: string, url: string, password: string | undefined): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [`${at}.url: not a URL`];
  }
  const problems: string[] = [];
  if (parsed.username || parsed.password) problems.push(`${at}.url: must not carry credentials; give the password in ${at}.password (from \${ENV})`);
  if (!isLoopback(url)) {
    if (!password) problems.push(`${at}.password: required for a Redis that is not on a loopback address (Redis holds sessions and counters)`);
    if (parsed.protocol !== 'rediss:') problems.push(`${at}.url: a Redis on another host must be reached over TLS (rediss://)`);
  }
  return problems;
}

/** Thrown when a Redis may evict keys: the process must not start on it. */
export class UnsafeRedis extends Error {
  override readonly name = 'UnsafeRedis';
}

/** Resolves when Redis will never evict a key; throws UnsafeRedis, naming the policy and the fix, otherwise. */
export async function assertNoEviction(redis: Redis, what: string): Promise<void> {
  const info = await redis.info('memory');
  const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
  if (policy === 'noeviction') return;
  throw new UnsafeRedis(
    `${what}: Redis's maxmemory-policy is "${policy ?? 'unknown'}", not "noeviction": it could evict live sessions, nonces and counters ` +
      `(a replay or a free guess). Set "maxmemory-policy noeviction" in redis.conf (or CONFIG SET maxmemory-policy noeviction) and start again.`,
  );
}

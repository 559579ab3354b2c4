import Redis from 'ioredis';
import { REDIS_URL } from './services';

/** Deletes every key under `prefix` (a suite's own run prefix), so that suites leave Redis as they found it. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/**
 * A connection for the suite (call inside the describe), opened before its tests and closed after
 * them, once the keys under `runPrefix` are deleted. Read it in tests, not at definition time.
 */
export function suiteRedis(runPrefix: string): () => Redis {
  let redis: Redis | undefined;
  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    await redis.ping();
  });
  afterAll(async () => {
    if (!redis) return;
    await deleteKeys(redis, runPrefix);
    await redis.quit();
  });
  return () => {
    if (!redis) throw new Error('suiteRedis: read the connection inside a test');
    return redis;
  };
}

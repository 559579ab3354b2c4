import Redis from 'ioredis';

/** The Redis the bench uses (SVC_BENCH_REDIS_URL, default the local one); each run keeps its keys under a prefix of its own. */
export const BENCH_REDIS_URL = process.env.SVC_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Deletes every key under `prefix` (a run's own), so that a run leaves Redis as it found it. */
export async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(BENCH_REDIS_URL, { maxRetriesPerRequest: 1 });
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}

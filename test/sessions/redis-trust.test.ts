/**
 * Redis as a trust root (SPEC section 12): a password unless the URL is loopback, TLS to another host,
 * no credentials in the URL; a core refuses to start on a Redis whose maxmemory-policy is not
 * noeviction, and says so; with the password it starts on a Redis that requires AUTH. The policies are
 * set on a private redis-server this suite starts on a spare port (the shared one is never reconfigured).
 */
import { ConfigError } from '../../server/src/config/load';
import { startTestServer } from '../helpers/core-server';
import { send } from '../helpers/http';
import { redisServerRequirement, startPrivateRedis } from '../helpers/private-redis';
import { describeWithService } from '../helpers/services';

const withRedis = (redis: Record<string, unknown>) => (doc: Record<string, unknown>) => {
  doc.sessions = { store: 'redis', redis };
};

/** What a configuration with these `sessions.redis` settings is refused for (none: it starts or fails later). */
async function refusal(redis: Record<string, unknown>): Promise<string[]> {
  const failed = await startTestServer({ configure: withRedis(redis) }).then(
    async (server) => {
      await server.stop();
      return undefined;
    },
    (error: unknown) => error,
  );
  return failed instanceof ConfigError ? failed.problems : [];
}

describe('sessions.redis in the configuration', () => {
  test('a Redis on another host needs a password and TLS', async () => {
    expect(await refusal({ url: 'redis://10.1.2.3:6379' })).toEqual([
      'sessions.redis.password: required for a Redis that is not on a loopback address (Redis holds sessions and counters)',
      'sessions.redis.url: a Redis on another host must be reached over TLS (rediss://)',
    ]);
  });

  test('credentials in the URL are refused: the password has a setting of its own', async () => {
    expect(await refusal({ url: 'redis://:secret@127.0.0.1:6379' })).toEqual([
      'sessions.redis.url: must not carry credentials; give the password in sessions.redis.password (from ${ENV})',
    ]);
  });
});

describeWithService(redisServerRequirement(), 'a core on a private Redis', () => {
  test('refuses to start when maxmemory-policy is not noeviction, naming the policy and the fix', async () => {
    const redis = await startPrivateRedis(['--maxmemory-policy', 'allkeys-lru']);
    try {
      const error = await startTestServer({ configure: withRedis({ url: redis.url }) }).then(
        (server) => server.stop().then(() => undefined),
        (e: unknown) => e as Error,
      );
      expect(error?.message).toMatch(/maxmemory-policy is "allkeys-lru", not "noeviction".*maxmemory-policy noeviction/);
    } finally {
      await redis.stop();
    }
  });

  test('starts with the password on a Redis that requires AUTH (noeviction), and not without it', async () => {
    const password = 'private-redis-password-for-this-test';
    const redis = await startPrivateRedis(['--maxmemory-policy', 'noeviction'], password);
    try {
      const server = await startTestServer({ configure: withRedis({ url: redis.url, password }) });
      try {
        expect((await send(`${server.url}/ready`)).json).toMatchObject({ checks: { sessions: 'up' } });
      } finally {
        await server.stop();
      }
      const error = await startTestServer({ configure: withRedis({ url: redis.url }) }).then(
        (s) => s.stop().then(() => undefined),
        (e: unknown) => e as Error,
      );
      expect(error?.message).toMatch(/sessions\.redis \(127\.0\.0\.1:\d+\) cannot be used: NOAUTH/);
    } finally {
      await redis.stop();
    }
  });
});

import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { withCore } from '../lib/core';
import { withGateway, type GatewayUnderTest } from '../lib/gateway';
import { rawLoop } from '../lib/raw-loop';
import { loadRow, type Scenario } from '../lib/scenario';

/** As in gateway.ts: compared where the gateway is at its capacity. */
const SATURATING = 4;
/** The local Redis (SVC_BENCH_REDIS_URL), keys under a prefix of this run, deleted afterwards. */
const REDIS_URL = process.env.SVC_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * The gateway with `gateway.redis` (SPEC 12) beside the gateway in memory, same core, same run: the
 * check of gateway.ts (form 3, bob about his own subject, a freshly signed assertion per request).
 * With Redis, each request costs the gateway two Redis round trips (the assertion's nonce, SET NX;
 * the principal's core session, GET and an AES-GCM opening) on the machine's same two cores, where
 * the memory gateway looks both up in its own process. Reported beside the memory row, no target:
 * this is what sharing costs.
 */
export const gatewayRedis: Scenario = {
  name: 'gateway-redis',
  run: (ctx) =>
    withCore({}, async (core) => {
      const prefix = `svc-bench:gw:${randomBytes(4).toString('hex')}:`;
      const many = ctx.connections * SATURATING;
      const through = (gw: GatewayUnderTest) =>
        rawLoop({
          method: 'GET',
          duration: ctx.duration,
          warmup: ctx.warmup,
          expectStatus: 200,
          headers: { Accept: 'application/json' },
          connections: many,
          origin: gw.url,
          path: `${gw.root}/api/contexts/employees/subjects/bob?isAllowed=READ`,
          nextHeaders: (method, sent) => gw.assertion({ contextId: 'employees', uniqueId: 'bob' }, method, sent),
        });
      const measure = async (redis?: { url: string; prefix: string }) =>
        withGateway(core.base, async (gw) => {
          await core.settle();
          await gw.settle();
          return through(gw);
        }, redis);
      try {
        const memory = loadRow(`check form 3 through the gateway (memory), ${many} connections (USER bob)`, await measure(), { target: 'reference' });
        const shared = loadRow(`check form 3 through the gateway with gateway.redis, ${many} connections (USER bob)`, await measure({ url: REDIS_URL, prefix }), { reference: memory });
        return [memory, shared];
      } finally {
        const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
          if (keys.length) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
        await redis.quit();
      }
    }),
};

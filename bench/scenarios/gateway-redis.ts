import { randomBytes } from 'node:crypto';
import { withCore } from '../lib/core';
import { withGateway, type GatewayUnderTest } from '../lib/gateway';
import { rawLoop } from '../lib/raw-loop';
import { BENCH_REDIS_URL, deleteRedisKeys } from '../lib/redis';
import { loadRow, type Measurement, type Scenario } from '../lib/scenario';

/** Two runs of one path as one row: throughputs and percentiles averaged, counts added. */
function mean(runs: Measurement[]): Measurement {
  const average = (pick: (m: Measurement) => number) => runs.reduce((sum, m) => sum + pick(m), 0) / runs.length;
  const failures = runs.reduce((sum, m) => sum + m.failures, 0);
  const kinds = runs.map((m) => m.failureKinds).filter(Boolean).join(', ');
  return { throughput: average((m) => m.throughput), p50Ms: average((m) => m.p50Ms), p99Ms: average((m) => m.p99Ms), total: runs.reduce((sum, m) => sum + m.total, 0), failures, ...(kinds ? { failureKinds: kinds } : {}) };
}

/** As in gateway.ts: compared where the gateway is at its capacity. */
const SATURATING = 4;

/**
 * The gateway with `gateway.redis` (SPEC 12) beside the gateway in memory, same core, same run: the
 * check of gateway.ts (form 3, bob about his own subject, a freshly signed assertion per request).
 * With Redis, each request costs the gateway two Redis round trips (the assertion's nonce, SET NX;
 * the principal's core session, GET and an AES-GCM opening) on the machine's same two cores, where
 * the memory gateway looks both up in its own process. Reported beside the memory row, no target:
 * this is what sharing costs. Each row is the mean of two half-length runs (percentiles averaged).
 */
export const gatewayRedis: Scenario = {
  name: 'gateway-redis',
  run: (ctx) =>
    withCore({}, async (core) => {
      const prefix = `svc-bench:gw:${randomBytes(4).toString('hex')}:`;
      const many = ctx.connections * SATURATING;
      const through = (gw: GatewayUnderTest, duration: number) =>
        rawLoop({
          method: 'GET',
          duration,
          warmup: ctx.warmup,
          expectStatus: 200,
          headers: { Accept: 'application/json' },
          connections: many,
          origin: gw.url,
          path: `${gw.root}/api/contexts/employees/subjects/bob?isAllowed=READ`,
          nextHeaders: (method, sent) => gw.assertion({ contextId: 'employees', uniqueId: 'bob' }, method, sent),
        });
      // Both gateways run side by side and are measured in the order memory, Redis, Redis, memory
      // (half the duration each), so that the machine's drift during the run touches both alike.
      const half = Math.max(1, ctx.duration / 2);
      try {
        const [memory, shared] = await withGateway(core.base, (inMemory) =>
          withGateway(core.base, async (onRedis) => {
            const runs: Record<'memory' | 'redis', Measurement[]> = { memory: [], redis: [] };
            for (const which of ['memory', 'redis', 'redis', 'memory'] as const) {
              const gw = which === 'memory' ? inMemory : onRedis;
              await core.settle();
              await gw.settle();
              runs[which].push(await through(gw, half));
            }
            return [mean(runs.memory), mean(runs.redis)];
          }, { redis: { url: BENCH_REDIS_URL, prefix } }),
        );
        const memoryRow = loadRow(`check form 3 through the gateway (memory), ${many} connections (USER bob)`, memory, { target: 'reference' });
        return [memoryRow, loadRow(`check form 3 through the gateway with gateway.redis, ${many} connections (USER bob)`, shared, { reference: memoryRow })];
      } finally {
        await deleteRedisKeys(prefix);
      }
    }),
};

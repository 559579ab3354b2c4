import { withCore } from '../lib/core';
import { withGateway } from '../lib/gateway';
import { rawLoop } from '../lib/raw-loop';
import type { Scenario } from '../lib/scenario';

/** Issue 28's goal: the gateway's heap per assertion its replay cache holds, after full GCs. */
const LIMIT_BYTES = 100;
const CONNECTIONS = 64;
/** Fewer nonces than this (a smoke run) measure the heap's noise, not the nonces: reported, not judged. */
const MIN_NONCES = 10_000;

/**
 * The gateway's heap per assertion held (issue 28): the check through the gateway, each request
 * with a fresh assertion, until its replay cache holds tens of thousands of nonces (each kept 181 s,
 * so none leaves during the row). The heap is read after full garbage collections (the gateway runs
 * with --expose-gc), once after a warm-up load (compiled code, sessions and pools in place) and once
 * after the measured load; the row is the heap added over the nonces added: everything a held
 * assertion costs the gateway, not only its cache entry.
 */
export const gatewayMemory: Scenario = {
  name: 'gateway-memory',
  run: (ctx) =>
    withCore({}, (core) =>
      withGateway(
        core.base,
        async (gw) => {
          const load = (seconds: number) =>
            rawLoop({
              method: 'GET',
              duration: seconds,
              warmup: 0,
              expectStatus: 200,
              connections: CONNECTIONS,
              origin: gw.url,
              path: `${gw.root}/api/contexts/employees/subjects/bob?isAllowed=READ`,
              headers: { Accept: 'application/json' },
              nextHeaders: (method, sent) => gw.assertion({ contextId: 'employees', uniqueId: 'bob' }, method, sent),
            });
          await core.settle();
          await load(ctx.warmup);
          const before = await gw.memory();
          const measured = await load(ctx.smoke ? ctx.duration : ctx.duration * 3);
          const after = await gw.memory();
          const added = after.nonces - before.nonces;
          const perNonce = added > 0 ? (after.heapUsed - before.heapUsed) / added : null;
          return [
            {
              name: 'gateway heap per assertion held in its replay cache (after full GCs)',
              throughput: null,
              unit: 'B/assertion',
              p50Ms: null,
              p99Ms: null,
              ratio: perNonce === null ? null : perNonce / LIMIT_BYTES,
              against: `${LIMIT_BYTES} B`,
              target: `≤ ${LIMIT_BYTES} B per assertion held`,
              met: perNonce === null || added < MIN_NONCES ? null : perNonce <= LIMIT_BYTES && measured.failures === 0,
              note: `${perNonce === null ? '—' : Math.round(perNonce)} B: heap ${Math.round(before.heapUsed / 1e6)} → ${Math.round(after.heapUsed / 1e6)} MB for ${added.toLocaleString('en-US')} more nonces held (${after.nonces.toLocaleString('en-US')} in all)${measured.failures ? `; ${measured.failures} requests failed` : ''}`,
            },
          ];
        },
        { nodeArgs: ['--expose-gc'] },
      ),
    ),
};

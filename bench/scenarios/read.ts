import { BARE_EXPRESS_GET } from '../baselines/names';
import { autocannonLoad } from '../lib/autocannon';
import { withCore } from '../lib/core';
import { loadRow, type Scenario } from '../lib/scenario';

/** READ of bob's own subject by bob's USER session (SQLite store, JSON). */
export const read: Scenario = {
  name: 'read',
  needs: ['bare-express'],
  run: (ctx) =>
    withCore({}, async (core) => {
      const m = await autocannonLoad({
        url: `${core.url}/svc/resources/contexts/employees/subjects/bob`,
        headers: { Cookie: core.cookie('bob'), Accept: 'application/json' },
        connections: ctx.connections,
        duration: ctx.duration,
        warmup: ctx.warmup,
        expectStatus: 200,
      });
      return [loadRow('READ subject (USER, own)', m, { reference: ctx.row(BARE_EXPRESS_GET), minRatio: 0.6 })];
    }),
};

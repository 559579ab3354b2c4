import { autocannonLoad } from '../lib/autocannon';
import { withChild } from '../lib/child';
import { loadRow, type Scenario } from '../lib/scenario';
import { BARE_HTTP_GET } from './names';

/** Baseline: a bare node:http server answering a constant JSON body. */
export const bareHttp: Scenario = {
  name: 'bare-http',
  run: (ctx) =>
    withChild<{ url: string }, ReturnType<typeof loadRow>[]>('servers/bare-http', [], async ({ ready }) => {
      const m = await autocannonLoad({ url: `${ready.url}/`, connections: ctx.connections, duration: ctx.duration, warmup: ctx.warmup });
      return [loadRow(BARE_HTTP_GET, m, { target: 'baseline' })];
    }),
};

import { autocannonLoad } from '../lib/autocannon';
import { withChild } from '../lib/child';
import { loadRow, type Row, type Scenario } from '../lib/scenario';
import { undiciLoop } from '../lib/undici-loop';
import { rawLoop } from '../lib/raw-loop';
import { BARE_EXPRESS_GET, BARE_EXPRESS_HEAD, BARE_EXPRESS_HEAD_UNDICI } from './names';

/**
 * Baseline: a bare express server answering a constant JSON body, loaded by autocannon (GET), the
 * keep-alive HEAD loop and the undici loop (HEAD), so that each form of the check compares against
 * the same load generator.
 */
export const bareExpress: Scenario = {
  name: 'bare-express',
  run: (ctx) =>
    withChild<{ url: string }, Row[]>('servers/bare-express', [], async ({ ready }) => {
      const load = { connections: ctx.connections, duration: ctx.duration, warmup: ctx.warmup };
      const get = await autocannonLoad({ url: `${ready.url}/`, ...load });
      const head = await rawLoop({ origin: ready.url, path: '/', method: 'HEAD', ...load });
      const headUndici = await undiciLoop({ origin: ready.url, path: '/', method: 'HEAD', ...load });
      return [
        loadRow(BARE_EXPRESS_GET, get, { target: 'baseline' }),
        loadRow(BARE_EXPRESS_HEAD, head, { target: 'baseline' }),
        loadRow(BARE_EXPRESS_HEAD_UNDICI, headUndici, { target: 'baseline', note: 'undici closes the connection after every HEAD' }),
      ];
    }),
};

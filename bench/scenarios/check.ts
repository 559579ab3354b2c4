import { BARE_EXPRESS_GET, BARE_EXPRESS_HEAD, BARE_EXPRESS_HEAD_UNDICI } from '../baselines/names';
import { autocannonLoad } from '../lib/autocannon';
import { withCore } from '../lib/core';
import { rawLoop } from '../lib/raw-loop';
import { loadRow, type Row, type Scenario } from '../lib/scenario';
import { undiciLoop } from '../lib/undici-loop';

const MIN_RATIO = 0.8;

/**
 * The check (SPEC 6), all four forms, for bob's USER session asking about his own subject (ALLOW,
 * 200). Form 1 (HEAD) is timed with the keep-alive HEAD loop, and with the undici loop (which
 * reconnects after every HEAD), each compared with bare express HEAD under the same loop; the
 * others with autocannon against bare express GET.
 */
export const check: Scenario = {
  name: 'check',
  needs: ['bare-express'],
  run: (ctx) =>
    withCore({}, async (core) => {
      const path = '/svc/resources/contexts/employees/subjects/bob';
      const load = { connections: ctx.connections, duration: ctx.duration, warmup: ctx.warmup, expectStatus: 200 };
      const headers = { Cookie: core.cookie('bob'), Accept: 'application/json' };
      const rows: Row[] = [];
      const headHeaders = { ...headers, 'X-Operation': 'READ' };
      const head = await rawLoop({ origin: core.url, path, method: 'HEAD', headers: headHeaders, ...load });
      rows.push(loadRow('check form 1: HEAD + X-Operation READ (USER)', head, { reference: ctx.row(BARE_EXPRESS_HEAD), minRatio: MIN_RATIO }));
      await core.settle();
      const headUndici = await undiciLoop({ origin: core.url, path, method: 'HEAD', headers: headHeaders, ...load });
      rows.push(loadRow('check form 1 over undici (reconnects)', headUndici, { reference: ctx.row(BARE_EXPRESS_HEAD_UNDICI), minRatio: MIN_RATIO }));
      const forms: Array<[string, string, string, string | undefined]> = [
        ['check form 2: PUT ?isAllowed=UPDATE (USER)', 'PUT', `${path}?isAllowed=UPDATE`, '{"subject":{"attributes":{"givenName":"Bobby"}}}'],
        ['check form 3: GET ?isAllowed=READ (USER)', 'GET', `${path}?isAllowed=READ`, undefined],
        ['check form 4: GET /authz/... (USER)', 'GET', '/svc/resources/authz/employees/subjects/bob', undefined],
      ];
      for (const [name, method, url, body] of forms) {
        await core.settle();
        const m = await autocannonLoad({
          url: core.url + url,
          method,
          body,
          headers: body ? { ...headers, 'Content-Type': 'application/json' } : headers,
          ...load,
        });
        rows.push(loadRow(name, m, { reference: ctx.row(BARE_EXPRESS_GET), minRatio: MIN_RATIO }));
      }
      return rows;
    }),
};

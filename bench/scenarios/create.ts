import { BARE_EXPRESS_GET } from '../baselines/names';
import { autocannonLoad } from '../lib/autocannon';
import { withCore } from '../lib/core';
import { loadRow, type Row, type Scenario } from '../lib/scenario';

/**
 * CREATE by alice (admin), a new uniqueId each request: without a password (the store path), and
 * with one (one argon2id hash per request at the configured parameters). Reported, no target.
 */
export const create: Scenario = {
  name: 'create',
  needs: ['bare-express'],
  run: (ctx) =>
    withCore({}, async (core) => {
      const rows: Row[] = [];
      let n = 0;
      const variants: Array<[string, (id: string) => Record<string, unknown>]> = [
        ['CREATE subject (admin, no password)', () => ({})],
        ['CREATE subject (admin, with password)', (id) => ({ password: `Pw-${id}-x9!` })],
      ];
      for (const [name, extra] of variants) {
        await core.settle();
        const m = await autocannonLoad({
          url: `${core.url}/svc/resources/contexts/employees/subjects`,
          method: 'POST',
          headers: { Cookie: core.cookie('alice'), Accept: 'application/json', 'Content-Type': 'application/json' },
          nextBody: () => {
            const id = `c${(n++).toString(36)}`;
            return JSON.stringify({ subject: { uniqueId: id, attributes: { mail: `${id}@example.com`, givenName: 'New', familyName: 'Subject', ...extra(id) } } });
          },
          connections: ctx.connections,
          duration: ctx.duration,
          warmup: ctx.warmup,
          expectStatus: 201,
        });
        rows.push(loadRow(name, m, { reference: ctx.row(BARE_EXPRESS_GET) }));
      }
      return rows;
    }),
};

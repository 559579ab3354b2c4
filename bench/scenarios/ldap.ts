import { withCore } from '../lib/core';
import { rawLoop } from '../lib/raw-loop';
import { loadRow, type Measurement, type Row, type Scenario } from '../lib/scenario';
import { readAndSearches } from '../lib/subject-loads';
import { BENCH_CLIENT, BENCH_CREDENTIALS } from '../servers/core-shared';
import { SEARCH_QUERIES } from './search';

type Store = 'sqlite' | 'ldap';
const STORE_NAME: Record<Store, string> = { sqlite: 'SQLite', ldap: 'LDAP' };
/**
 * Logins are all bob's: each attempt holds a place in his lockout counters until it is answered, and
 * with an ldap context the per-subject limit is stores.ldap.maxFailures (3), so more concurrent
 * attempts than that would be refused as a lock (as they must). Two connections on both stores.
 */
const LOGIN_CONNECTIONS = 2;

/**
 * The LDAP directory store (issue 18) beside SQLite, same run, same seeded size: READ of bob's own
 * subject, the two SEARCHes of search.ts, and a login with password (on SQLite an argon2id
 * verification at the production parameters; on LDAP a bind as bob on a fresh connection). The
 * throwaway slapd (test/ldap/slapd.sh) runs on the same machine and shares its two cores with the
 * server and the load generator. No targets: the rows say what a directory costs.
 */
export const ldap: Scenario = {
  name: 'ldap',
  run: async (ctx) => {
    const size = ctx.smoke ? 1_000 : 10_000;
    const measured = new Map<string, Measurement>();
    const key = (what: string, store: Store) => `${what}|${store}`;
    for (const store of ['sqlite', 'ldap'] as const) {
      await withCore({ subjects: size, store }, async (core) => {
        ctx.log(`  ${STORE_NAME[store]}: ${size} subjects seeded in ${core.seedSeconds.toFixed(1)} s`);
        for (const [what, measurement] of await readAndSearches(ctx, core, SEARCH_QUERIES)) measured.set(key(what, store), measurement);
        await core.settle();
        const body = new URLSearchParams({ user: 'bob', password: BENCH_CREDENTIALS.users.bob, clientid: BENCH_CLIENT }).toString();
        const login = { origin: core.url, path: '/svc/login', method: 'POST' as const, headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, body, connections: LOGIN_CONNECTIONS, expectStatus: 200, warmup: 0 };
        if (ctx.warmup > 0) await rawLoop({ ...login, duration: ctx.warmup });
        measured.set(key('login', store), await rawLoop({ ...login, duration: ctx.duration }));
      });
    }
    const at = size.toLocaleString('en-US');
    const pair = (label: string, what: string): Row[] => {
      const sqlite = loadRow(`${label} @ ${at} SQLite`, measured.get(key(what, 'sqlite'))!, {});
      return [sqlite, loadRow(`${label} @ ${at} LDAP`, measured.get(key(what, 'ldap'))!, { reference: sqlite })];
    };
    return [
      ...pair('READ subject (USER, own)', 'READ'),
      ...SEARCH_QUERIES.flatMap(([label]) => pair(`SEARCH ${label}`, label)),
      ...pair('login with password (POST /login)', 'login'),
    ];
  },
};

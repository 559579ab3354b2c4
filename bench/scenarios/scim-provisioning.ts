import { Client } from 'undici';
import { withCore } from '../lib/core';
import { Latencies } from '../lib/percentiles';
import { loadRow, type Measurement, type Row, type Scenario } from '../lib/scenario';
import { BENCH_CREDENTIALS } from '../servers/core-shared';

/**
 * Issue 30 (SPEC 14): provisioning 10,000 users through SCIM (POST /Users with the demo's token, as
 * an identity provider does) against REST CREATE by an admin (alice) in the same run, on one core:
 * the same subjects (mail, given and family name, no password), the same connections. The two run
 * in alternating rounds of 1,000 (REST first in one, SCIM first in the next), so drift in the
 * machine's load falls on both; users per second over all rounds. Goal: SCIM ≥ 0.8 × REST.
 */
const USERS = 10_000;
const ROUND = 1_000;

async function provision(origin: string, count: number, connections: number, request: (i: number) => { path: string; headers: Record<string, string>; body: string }): Promise<Measurement> {
  const clients = Array.from({ length: connections }, () => new Client(origin, { pipelining: 1, keepAliveTimeout: 60_000 }));
  const latencies = new Latencies();
  let next = 0;
  let ok = 0;
  let failed = 0;
  const kinds = new Map<string, number>();
  const started = process.hrtime.bigint();
  await Promise.all(
    clients.map(async (client) => {
      while (next < count) {
        const i = next++;
        const { path, headers, body } = request(i);
        const t0 = process.hrtime.bigint();
        const answer = await client.request({ path, method: 'POST', headers, body });
        await answer.body.arrayBuffer();
        latencies.record(Number(process.hrtime.bigint() - t0) / 1e6);
        if (answer.statusCode === 201) ok++;
        else {
          failed++;
          kinds.set(String(answer.statusCode), (kinds.get(String(answer.statusCode)) ?? 0) + 1);
        }
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  await Promise.all(clients.map((c) => c.close()));
  return { throughput: ok / elapsed, ...latencies.summary(), total: ok + failed, failures: failed, ...(kinds.size ? { failureKinds: [...kinds].map(([k, n]) => `${k} ×${n}`).join(', ') } : {}) };
}

/** Rounds' measurements as one: operations over the summed time, the median round's latencies. */
function combine(rounds: Measurement[]): Measurement {
  const ok = rounds.reduce((n, m) => n + (m.total - m.failures), 0);
  const seconds = rounds.reduce((t, m) => t + (m.total - m.failures) / m.throughput, 0);
  const sorted = [...rounds].sort((a, b) => a.p50Ms - b.p50Ms);
  const middle = sorted[Math.floor(sorted.length / 2)];
  return { throughput: ok / seconds, p50Ms: middle.p50Ms, p99Ms: Math.max(...rounds.map((m) => m.p99Ms)), total: rounds.reduce((n, m) => n + m.total, 0), failures: rounds.reduce((n, m) => n + m.failures, 0) };
}

export const scimProvisioning: Scenario = {
  name: 'scim-provisioning',
  run: (ctx) =>
    withCore({}, async (core) => {
      const total = ctx.smoke ? 200 : USERS;
      const round = Math.min(ROUND, total);
      const origin = new URL(core.url).origin;
      const rest: Measurement[] = [];
      const scim: Measurement[] = [];
      const restRequest = (prefix: string) => (i: number) => {
        const id = `r${prefix}${i}`;
        return {
          path: '/svc/resources/contexts/employees/subjects',
          headers: { cookie: core.cookie('alice'), accept: 'application/json', 'content-type': 'application/json' },
          body: JSON.stringify({ subject: { uniqueId: id, attributes: { mail: `${id}@example.com`, givenName: 'New', familyName: 'Subject' } } }),
        };
      };
      const scimRequest = (prefix: string) => (i: number) => {
        const id = `s${prefix}${i}`;
        return {
          path: '/svc/scim/v2/employees/Users',
          headers: { authorization: `Bearer ${BENCH_CREDENTIALS.scim['scim-employees']}`, accept: 'application/scim+json', 'content-type': 'application/scim+json' },
          body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: id, name: { givenName: 'New', familyName: 'Subject' }, emails: [{ value: `${id}@example.com`, type: 'work', primary: true }], active: true }),
        };
      };
      await core.settle();
      for (let r = 0; r * round < total; r++) {
        const prefix = `${r}x`;
        const order: Array<() => Promise<void>> = [
          async () => void rest.push(await provision(origin, round, ctx.connections, restRequest(prefix))),
          async () => void scim.push(await provision(origin, round, ctx.connections, scimRequest(prefix))),
        ];
        if (r % 2 === 1) order.reverse();
        for (const run of order) await run();
        ctx.log(`  round ${r + 1}: REST ${rest[rest.length - 1].throughput.toFixed(0)}/s, SCIM ${scim[scim.length - 1].throughput.toFixed(0)}/s`);
      }
      const restRow = loadRow(`provision ${total} users: REST CREATE (admin)`, combine(rest), { unit: 'users/s' });
      const scimRow = loadRow(`provision ${total} users: SCIM POST /Users`, combine(scim), { unit: 'users/s', reference: restRow, minRatio: 0.8 });
      const rows: Row[] = [restRow, scimRow];
      return rows;
    }),
};

import { countCpu, pidsNamed, type CpuReport } from '../lib/cpu';
import { withChild } from '../lib/child';
import { settle } from '../lib/core';
import { rawLoop } from '../lib/raw-loop';
import { loadRow, type Measurement, type Row, type Scenario } from '../lib/scenario';
import type { WorkersReady } from '../servers/core-shared';

const MIN_RATIO = 1.3;

type Mode = 'one process' | '--workers 2';
const MODES: Array<[Mode, string[]]> = [
  ['one process', []],
  ['--workers 2', ['--workers', '2']],
];

interface Round {
  m: Measurement;
  cpu: CpuReport;
}

/** The rounds of one row as one measurement: mean throughput and p50, the worst p99, every request counted. */
function combine(rounds: Round[]): Measurement {
  const mean = (f: (m: Measurement) => number) => rounds.reduce((sum, r) => sum + f(r.m), 0) / rounds.length;
  return {
    throughput: mean((m) => m.throughput),
    p50Ms: mean((m) => m.p50Ms),
    p99Ms: Math.max(...rounds.map((r) => r.m.p99Ms)),
    total: rounds.reduce((sum, r) => sum + r.m.total, 0),
    failures: rounds.reduce((sum, r) => sum + r.m.failures, 0),
  };
}

/**
 * Where the measured windows' CPU went, per 1000 answered checks ("other": every process not in a
 * group, e.g. other users of the machine), how busy the machine was, and each round's throughput.
 */
function cpuNote(rounds: Round[], seconds: number): string {
  const answered = rounds.reduce((sum, r) => sum + r.m.throughput * seconds, 0);
  const per1000 = (s: number) => ((s / Math.max(1, answered)) * 1000).toFixed(3);
  const groups = Object.keys(rounds[0].cpu.seconds);
  const parts = groups.map((group) => `${group} ${per1000(rounds.reduce((sum, r) => sum + r.cpu.seconds[group], 0))}`);
  const other = per1000(rounds.reduce((sum, r) => sum + r.cpu.otherSeconds, 0));
  const busy = Math.round((rounds.reduce((sum, r) => sum + r.cpu.machineBusy, 0) / rounds.length) * 100);
  const each = rounds.map((r) => Math.round(r.m.throughput).toLocaleString('en-US')).join(' / ');
  return `rounds ${each} req/s; CPU s per 1000 checks: ${parts.join(', ')}, other ${other}; machine ${busy} % busy`;
}

/**
 * The check on PostgreSQL and Redis (issue 15, "Workers"): the real `svc server` as one process, then
 * as `--workers 2` (servers/core-workers.ts), bob's session in Redis. Form 1 (HEAD + X-Operation)
 * and form 3 (GET ?isAllowed=READ) with the raw keep-alive loop, the cheapest load generator, which
 * runs on the same machine (its CPU is counted). Each row notes where the CPU went (lib/cpu.ts).
 * Two rounds (one in --smoke), the modes alternating; a row is their mean.
 * Target: --workers 2 ≥ 1.3 × one process.
 */
export const workers: Scenario = {
  name: 'workers',
  run: async (ctx) => {
    const path = '/svc/resources/contexts/employees/subjects/bob';
    const forms: Array<[string, string, string, Record<string, string>]> = [
      ['check form 1: HEAD + X-Operation READ', 'HEAD', path, { 'X-Operation': 'READ' }],
      ['check form 3: GET ?isAllowed=READ', 'GET', `${path}?isAllowed=READ`, {}],
    ];
    const measured = new Map<string, Round[]>();
    // Rounds alternate the modes, so that the drift of a shared machine touches both alike.
    const rounds = ctx.smoke ? 1 : 2;
    for (let round = 0; round < rounds; round++) for (const [mode, args] of MODES) {
      await withChild<WorkersReady, void>('servers/core-workers', args, async (child) => {
        const svc = child.ready;
        const groups = {
          svc: () => [...new Set([svc.primaryPid, ...svc.workerPids])],
          'load generator': () => [process.pid],
          Redis: () => pidsNamed('redis-server'),
          PostgreSQL: () => pidsNamed('postgres'),
        };
        for (const [name, method, url, extra] of forms) {
          await settle(svc.url);
          const load = { origin: svc.url, path: url, method, headers: { Cookie: `${svc.cookieName}=${svc.bobCookie}`, Accept: 'application/json', ...extra }, connections: ctx.connections, expectStatus: 200 };
          if (ctx.warmup > 0) await rawLoop({ ...load, duration: ctx.warmup, warmup: 0 });
          const cpu = countCpu(groups);
          const m = await rawLoop({ ...load, duration: ctx.duration, warmup: 0 });
          const key = `${name}|${mode}`;
          measured.set(key, [...(measured.get(key) ?? []), { m, cpu: cpu.stop() }]);
        }
      });
    }
    const rows: Row[] = [];
    for (const [name] of forms) {
      const one = measured.get(`${name}|one process`)!;
      const two = measured.get(`${name}|--workers 2`)!;
      const reference = loadRow(`${name} (PG+Redis) one process`, combine(one), { note: cpuNote(one, ctx.duration) });
      rows.push(reference, loadRow(`${name} (PG+Redis) --workers 2`, combine(two), { reference, minRatio: MIN_RATIO, note: cpuNote(two, ctx.duration) }));
    }
    return rows;
  },
};

/**
 * Soak (issue 16, item 5): a steady mixed load against a real core, gateway and portal, each its own
 * child process, for a fixed time, sampling the core's memory as it goes.
 *
 *   node dist/bench/soak.js --minutes N | --seconds N  [--subjects N] [--out FILE]
 *
 * One keep-alive connection per kind of request, each sending its next request as soon as the last
 * is answered (steady, not saturating: the kinds share a 2-core machine with the servers). Every few
 * seconds the core collects garbage fully and reports its heap and RSS (SIGUSR2, --expose-gc).
 * Prints the 5xx count and p50/p99 per kind and the memory over time as bar charts, and writes the
 * same as JSON (default bench/soak-results.json).
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { barChart, type MemoryPoint } from './lib/chart';
import { withChild } from './lib/child';
import { withCore, type CoreUnderTest } from './lib/core';
import { withGateway, type GatewayUnderTest } from './lib/gateway';
import { rawLoop, type RawLoopOptions } from './lib/raw-loop';
import { BENCH_CLIENT, BENCH_CREDENTIALS, seededId, type MemoryReport } from './servers/core-shared';
import type { PortalReady } from './servers/portal';

const BENCH_SOURCE = join(__dirname, '..', '..', 'bench');
/** Seeded subjects beside alice and bob: what SEARCH and the write work on. */
const DEFAULT_SUBJECTS = 1000;

export interface KindResult {
  kind: string;
  requests: number;
  /** Answers other than the expected status (4xx included), and connection errors. */
  failures: number;
  serverErrors: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

export interface SoakSummary {
  date: string;
  seconds: number;
  warmupSeconds: number;
  sampleSeconds: number;
  kinds: KindResult[];
  serverErrors: number;
  memory: Array<{ t: number } & MemoryReport>;
  /** The first sample at or after the warm-up, and the last one. */
  afterWarmup: MemoryReport & { t: number };
  atEnd: MemoryReport & { t: number };
}

type Kind = [string, Omit<RawLoopOptions, 'connections' | 'duration' | 'warmup'>];

/**
 * The login kind presents the session cookie its last login set, as a browser does: each login ends
 * the session it replaces. Without it every login left a session behind (kept 30 minutes idle), and
 * the core's heap grew with the run's length, hiding whether anything else did.
 */
function carriedCookie(name: string): Pick<RawLoopOptions, 'nextHeaders' | 'onHead'> {
  const setCookie = new RegExp(`\\r\\nset-cookie:\\s*(${name}=[^;\\r]*)`, 'i');
  let cookie: string | undefined;
  return {
    nextHeaders: (): Record<string, string> => (cookie ? { Cookie: cookie } : {}),
    onHead: (head) => {
      cookie = setCookie.exec(head)?.[1] ?? cookie;
    },
  };
}

function kinds(core: CoreUnderTest, gw: GatewayUnderTest, portal: PortalReady): Kind[] {
  const root = new URL(core.base).pathname;
  const bob = `${root}/resources/contexts/employees/subjects/bob`;
  const asBob = { Cookie: core.cookie('bob'), Accept: 'application/json' };
  const asAlice = { Cookie: core.cookie('alice'), Accept: 'application/json' };
  const json = { 'Content-Type': 'application/json' };
  const login = new URLSearchParams({ user: 'bob', password: BENCH_CREDENTIALS.users.bob, clientid: BENCH_CLIENT }).toString();
  const filter = encodeURIComponent(`mail eq "${seededId(42)}@example.com"`);
  const gwPath = `${gw.root}/api/contexts/employees/subjects/bob?isAllowed=READ`;
  const o = core.url;
  return [
    ['login (POST /login, bob)', { origin: o, method: 'POST', path: `${root}/login`, headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, body: login, expectStatus: 200, ...carriedCookie(core.cookieName) }],
    ['check form 1: HEAD (bob)', { origin: o, method: 'HEAD', path: bob, headers: { ...asBob, 'X-Operation': 'READ' }, expectStatus: 200 }],
    ['check form 2: PUT ?isAllowed (bob)', { origin: o, method: 'PUT', path: `${bob}?isAllowed=UPDATE`, headers: { ...asBob, ...json }, body: '{"subject":{"attributes":{"givenName":"Bobby"}}}', expectStatus: 200 }],
    ['check form 3: GET ?isAllowed (bob)', { origin: o, method: 'GET', path: `${bob}?isAllowed=READ`, headers: asBob, expectStatus: 200 }],
    ['check form 4: GET /authz (bob)', { origin: o, method: 'GET', path: `${root}/resources/authz/employees/subjects/bob`, headers: asBob, expectStatus: 200 }],
    ['READ subject (alice)', { origin: o, method: 'GET', path: `${root}/resources/contexts/employees/subjects/${seededId(1)}`, headers: asAlice, expectStatus: 200 }],
    ['SEARCH filter mail eq (alice)', { origin: o, method: 'GET', path: `${root}/resources/contexts/employees/subjects?filter=${filter}`, headers: asAlice, expectStatus: 200 }],
    ['UPDATE givenName (alice)', { origin: o, method: 'PUT', path: `${root}/resources/contexts/employees/subjects/${seededId(7)}`, headers: { ...asAlice, ...json }, body: '{"subject":{"attributes":{"givenName":"Soak"}}}', expectStatus: 200 }],
    ['gateway check form 3 (signed, bob)', { origin: gw.url, method: 'GET', path: gwPath, headers: { Accept: 'application/json' }, nextHeaders: (method, sent) => gw.assertion({ contextId: 'employees', uniqueId: 'bob' }, method, sent), expectStatus: 200 }],
    ['portal home page (bob)', { origin: portal.url, method: 'GET', path: `${portal.root}/page/home`, headers: { Accept: 'text/html', Cookie: portal.cookies.bob }, expectStatus: 200 }],
  ];
}

async function soak(seconds: number, subjects: number): Promise<SoakSummary> {
  const warmupSeconds = Math.min(60, seconds / 4);
  const sampleSeconds = Math.max(2, Math.min(10, seconds / 40));
  return withCore({ subjects, nodeArgs: ['--expose-gc'] }, (core) =>
    withGateway(core.base, (gw) =>
      withChild<PortalReady, SoakSummary>('servers/portal', ['--gateway', gw.base], async (portal) => {
        const memory: Array<{ t: number } & MemoryReport> = [];
        const started = performance.now();
        const sample = async () => memory.push({ t: (performance.now() - started) / 1000, ...(await core.memory()) });
        await sample();
        let sampling = true;
        const sampler = (async () => {
          while (sampling) {
            await new Promise((r) => setTimeout(r, sampleSeconds * 1000));
            if (sampling) await sample();
          }
        })();
        const loads = kinds(core, gw, portal.ready).map(async ([kind, options]): Promise<KindResult> => {
          let serverErrors = 0;
          const m = await rawLoop({ ...options, connections: 1, duration: seconds, warmup: 0, onStatus: (s) => (serverErrors += s >= 500 ? 1 : 0) });
          return { kind, requests: m.total, failures: m.failures, serverErrors, p50Ms: Number.isNaN(m.p50Ms) ? null : m.p50Ms, p99Ms: Number.isNaN(m.p99Ms) ? null : m.p99Ms };
        });
        const results = await Promise.all(loads);
        sampling = false;
        await sampler;
        await sample();
        const afterWarmup = memory.find((m) => m.t >= warmupSeconds) ?? memory[memory.length - 1];
        return {
          date: new Date().toISOString(),
          seconds,
          warmupSeconds,
          sampleSeconds,
          kinds: results,
          serverErrors: results.reduce((n, k) => n + k.serverErrors, 0),
          memory,
          afterWarmup,
          atEnd: memory[memory.length - 1],
        };
      }),
    ),
  );
}

const MB = 1024 * 1024;
const ms = (v: number | null) => (v === null ? '-' : v.toFixed(2));

function format(s: SoakSummary): string {
  const name = Math.max(...s.kinds.map((k) => k.kind.length));
  const rows = s.kinds.map((k) => `| ${k.kind.padEnd(name)} | ${String(k.requests).padStart(8)} | ${String(k.serverErrors).padStart(3)} | ${String(k.failures).padStart(8)} | ${ms(k.p50Ms).padStart(7)} | ${ms(k.p99Ms).padStart(7)} |`);
  const series = (pick: (m: MemoryReport) => number): MemoryPoint[] => s.memory.map((m) => ({ t: m.t, bytes: pick(m) }));
  const mem = (label: string, m: MemoryReport & { t: number }) => `${label} (${Math.round(m.t)} s): heap ${(m.heapUsed / MB).toFixed(1)} MB, RSS ${(m.rss / MB).toFixed(1)} MB`;
  return [
    `| ${'kind'.padEnd(name)} | requests | 5xx | failures |  p50 ms |  p99 ms |`,
    `|${'-'.repeat(name + 2)}|---------:|----:|---------:|--------:|--------:|`,
    ...rows,
    '',
    `5xx in all: ${s.serverErrors}`,
    mem('core after warm-up', s.afterWarmup),
    mem('core at the end', s.atEnd),
    '',
    barChart('core heap used after full GC', series((m) => m.heapUsed)),
    '',
    barChart('core RSS', series((m) => m.rss)),
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { minutes: { type: 'string' }, seconds: { type: 'string' }, subjects: { type: 'string' }, out: { type: 'string' } } });
  const seconds = values.seconds !== undefined ? Number(values.seconds) : Number(values.minutes ?? 1) * 60;
  if (!(seconds > 0)) throw new Error('--minutes N or --seconds N: a positive number');
  const subjects = Number(values.subjects ?? DEFAULT_SUBJECTS);
  const out = resolve(values.out ?? join(BENCH_SOURCE, 'soak-results.json'));
  const summary = await soak(seconds, subjects);
  writeFileSync(out, JSON.stringify(summary, null, 2) + '\n');
  process.stdout.write(`${format(summary)}\n\nsummary: ${out}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

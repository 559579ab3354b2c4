/**
 * svc benchmarks (issue 7): every server under test runs as its own process; baselines are measured
 * in the same run. Prints one Markdown table and writes it as JSON.
 *
 *   npm run bench                                  full run → bench/results.json
 *   node dist/bench/run.js --smoke                 ~1 s per row (CI) → bench/results-smoke.json
 *   node dist/bench/run.js --only check --only read   → bench/results-partial.json
 *   options: --duration S  --warmup S  --connections N  --out FILE
 *   BENCH_PROFILE=DIR  runs every child under --cpu-prof, profiles written to DIR
 *   BENCH_GATEWAY_OTHER=…/dist/bench  the gateway scenario also measures that build's gateway (before/after in one run)
 */
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Row, RunOptions, Scenario } from './lib/scenario';
import { formatTable } from './lib/table';
import { SCENARIOS } from './scenarios';

/** dist/bench → the repository's bench/ folder. */
const BENCH_SOURCE = join(__dirname, '..', '..', 'bench');

export interface Results {
  date: string;
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; platform: string };
  options: RunOptions;
  scenarios: string[];
  rows: Row[];
  failures: Array<{ scenario: string; error: string }>;
}

/** The selected scenarios plus everything they need, in registry order. */
function select(only: string[]): Scenario[] {
  if (!only.length) return SCENARIOS;
  const byName = new Map(SCENARIOS.map((s) => [s.name, s]));
  const wanted = new Set<string>();
  const add = (name: string) => {
    const scenario = byName.get(name);
    if (!scenario) refuse(`unknown scenario "${name}"`);
    if (wanted.has(name)) return;
    wanted.add(name);
    for (const need of scenario.needs ?? []) add(need);
  };
  for (const name of only.flatMap((o) => o.split(','))) add(name.trim());
  return SCENARIOS.filter((s) => wanted.has(s.name));
}

const USAGE = `usage: node dist/bench/run.js [--smoke] [--only SCENARIO]... [--duration S] [--warmup S] [--connections N] [--out FILE]
scenarios: ${SCENARIOS.map((s) => s.name).join(', ')}`;

function parseCommandLine() {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({
      options: {
        smoke: { type: 'boolean', default: false },
        only: { type: 'string', multiple: true, default: [] },
        duration: { type: 'string' },
        warmup: { type: 'string' },
        connections: { type: 'string' },
        out: { type: 'string' },
      },
    }).values;
  } catch (error) {
    return refuse((error as Error).message);
  }
}

/** A mistyped command line gets its mistake and the usage, not a stack trace. */
function refuse(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

/** A run of some scenarios must not overwrite the full run's table, which the README quotes. */
function defaultOut(smoke: boolean, only: string[]): string {
  return join(BENCH_SOURCE, smoke ? 'results-smoke.json' : only.length ? 'results-partial.json' : 'results.json');
}

async function main(): Promise<number> {
  const values = parseCommandLine();
  const smoke = values.smoke ?? false;
  const options: RunOptions = {
    smoke,
    duration: Number(values.duration ?? (smoke ? 1 : 10)),
    warmup: Number(values.warmup ?? (smoke ? 0 : 2)),
    connections: Number(values.connections ?? 16),
  };
  const out = resolve(values.out ?? defaultOut(smoke, values.only ?? []));
  const scenarios = select(values.only ?? []);
  const log = (message: string) => process.stderr.write(message + '\n');
  const rows: Row[] = [];
  const failures: Results['failures'] = [];
  log(`svc bench: ${scenarios.map((s) => s.name).join(', ')} (${options.duration} s per row, ${options.warmup} s warmup, ${options.connections} connections)`);
  for (const scenario of scenarios) {
    const started = Date.now();
    log(`- ${scenario.name}`);
    try {
      const measured = await scenario.run({ ...options, row: (name) => rows.find((r) => r.name === name), log });
      rows.push(...measured);
      log(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      failures.push({ scenario: scenario.name, error: message });
      log(`  FAILED: ${message}`);
    }
  }
  const results: Results = {
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    options,
    scenarios: scenarios.map((s) => s.name),
    rows,
    failures,
  };
  writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  process.stdout.write(formatTable(rows) + '\n');
  for (const f of failures) process.stdout.write(`FAILED ${f.scenario}: ${f.error}\n`);
  process.stdout.write(`machine: ${results.machine.cpus} × ${results.machine.cpuModel}, Node ${results.machine.node}; results: ${out}\n`);
  return failures.length ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);

/** What every benchmark scenario (and baseline) is: a name and a function that measures rows. */

/** Throughput and latency of one measured load. */
export interface Measurement {
  /** Successful operations per second. */
  throughput: number;
  /** Milliseconds. */
  p50Ms: number;
  p99Ms: number;
  /** Operations completed (successful or not). */
  total: number;
  /** Answers that were not the expected status, plus connection errors. */
  failures: number;
  /** What the failures were, e.g. `401 ×12, 3 errors` (load generators that can tell). */
  failureKinds?: string;
}

/** One line of the results table (and one entry of bench/results.json). */
export interface Row {
  name: string;
  /** Operations per second; null when the row measures something else (memory). */
  throughput: number | null;
  unit: string;
  p50Ms: number | null;
  p99Ms: number | null;
  /** This row against its reference (a baseline of the same run, or a fixed limit). */
  ratio: number | null;
  /** What `ratio` compares against. */
  against: string | null;
  /** The target as stated in issue 7, or "reported". */
  target: string;
  /** null when there is no target or it could not be evaluated. */
  met: boolean | null;
  note?: string;
}

export interface RunOptions {
  smoke: boolean;
  /** Seconds of measured load per row. */
  duration: number;
  /** Seconds of unmeasured load before it. */
  warmup: number;
  /** Concurrent connections of the load generator. */
  connections: number;
}

export interface ScenarioContext extends RunOptions {
  /** A row measured earlier in this run (baselines run first). */
  row(name: string): Row | undefined;
  log(message: string): void;
}

export interface Scenario {
  /** What `--only` selects. */
  name: string;
  /** Other scenarios (usually baselines) whose rows this one compares against; run first. */
  needs?: string[];
  run(context: ScenarioContext): Promise<Row[]>;
}

/** A row measured under load, compared with `reference` (throughput ratio, higher is better). */
export function loadRow(
  name: string,
  m: Measurement,
  options: { unit?: string; reference?: Row; minRatio?: number; target?: string; note?: string },
): Row {
  const reference = options.reference;
  const ratio = reference?.throughput ? m.throughput / reference.throughput : null;
  const notes = [options.note, m.failures ? `${m.failures} failed of ${m.total}${m.failureKinds ? `: ${m.failureKinds}` : ''}` : undefined].filter(Boolean);
  return {
    name,
    throughput: m.throughput,
    unit: options.unit ?? 'req/s',
    p50Ms: m.p50Ms,
    p99Ms: m.p99Ms,
    ratio,
    against: reference ? reference.name : null,
    target: options.target ?? (options.minRatio !== undefined && reference ? `≥ ${options.minRatio} × ${reference.name}` : 'reported'),
    met: options.minRatio !== undefined && ratio !== null ? ratio >= options.minRatio && m.failures === 0 : null,
    ...(notes.length ? { note: notes.join('; ') } : {}),
  };
}

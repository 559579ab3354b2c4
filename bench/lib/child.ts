import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** Compiled bench files live next to this one: dist/bench/lib → dist/bench. */
export const BENCH_DIST = join(__dirname, '..');

export interface RunningChild<T> {
  /** The JSON object the child printed as its first stdout line. */
  ready: T;
  process: ChildProcess;
  /** Further JSON lines the child prints after the ready line. */
  nextLine(): Promise<unknown>;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  /** Node flags before the script (e.g. --expose-gc, --cpu-prof). */
  nodeArgs?: string[];
  env?: NodeJS.ProcessEnv;
  /** How long to wait for the ready line. */
  timeoutMs?: number;
  /** Where the compiled scripts are (default BENCH_DIST; a test running from sources passes dist/bench). */
  dir?: string;
}

/**
 * Starts `node dist/bench/<script>.js ...args` as its own process (so that the load generator and
 * the server never share an event loop) and resolves with the first JSON line it prints on stdout.
 * Anything on stderr is passed through. PROFILE=1 adds --cpu-prof (profiles land in bench-profiles/).
 */
export async function spawnChild<T>(script: string, args: string[] = [], options: SpawnOptions = {}): Promise<RunningChild<T>> {
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, ...(options.nodeArgs ?? []), join(options.dir ?? BENCH_DIST, `${script}.js`), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...options.env },
  });
  const lines = createInterface({ input: child.stdout! });
  const queue: string[] = [];
  const waiters: Array<(line: string | undefined) => void> = [];
  let closed = false;
  lines.on('line', (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else queue.push(line);
  });
  lines.on('close', () => {
    closed = true;
    for (const waiter of waiters.splice(0)) waiter(undefined);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const readLine = (timeoutMs: number): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const queued = queue.shift();
      if (queued !== undefined) return resolve(JSON.parse(queued));
      if (closed) return reject(new Error(`${script} exited (code ${child.exitCode}) before printing a line`));
      const timer = setTimeout(() => reject(new Error(`${script}: no line within ${timeoutMs} ms`)), timeoutMs);
      waiters.push((line) => {
        clearTimeout(timer);
        if (line === undefined) reject(new Error(`${script} exited (code ${child.exitCode}) before printing a line`));
        else {
          try {
            resolve(JSON.parse(line));
          } catch {
            reject(new Error(`${script} printed a line that is not JSON: ${line.slice(0, 200)}`));
          }
        }
      });
    });

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      // SIGINT lets the child close its server (and write a --cpu-prof profile) before it exits.
      child.kill('SIGINT');
      const forced = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(forced);
    }
  };

  try {
    const ready = (await readLine(options.timeoutMs ?? 120_000)) as T;
    return { ready, process: child, nextLine: () => readLine(options.timeoutMs ?? 120_000), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Runs `body` with a child started, and always stops the child afterwards. */
export async function withChild<T, R>(script: string, args: string[], body: (child: RunningChild<T>) => Promise<R>, options?: SpawnOptions): Promise<R> {
  const child = await spawnChild<T>(script, args, options);
  try {
    return await body(child);
  } finally {
    await child.stop();
  }
}

/** Child side: prints one JSON line on stdout (the parent reads it with `nextLine` / as the ready line). */
export function report(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

/** Child side: run `close` on SIGINT/SIGTERM, then exit. */
export function onStop(close: () => Promise<void> | void): void {
  const stop = () => {
    void Promise.resolve()
      .then(close)
      .finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/**
 * The primary of `svc server --workers N` and `svc gateway --workers N` (SPEC section 12, "Workers"):
 * forks N workers (node:cluster, this same command, so they share one listening port), replaces a
 * worker that dies, stops them all on SIGTERM/SIGINT and passes SIGHUP on (each reloads its
 * configuration). The primary serves nothing itself; it only supervises.
 *
 * Worker side (`workerStarted`, `workerReloaded`): a worker tells the primary its URL once it
 * listens, and that it reloaded its configuration through HTTP, so that the others reload too.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../log';

export interface SupervisorOptions {
  workers: number;
  log: Logger;
  /** A replacement waits `minBackoffMs`, doubled for each death in a row, up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** A worker that lived this long resets the back-off (its death was not part of a crash loop). */
  stableMs?: number;
  /** How long a stop waits for workers to finish before killing them. */
  stopTimeoutMs?: number;
  /**
   * Whether the workers reload their configuration on SIGHUP (the core's do); if not, the primary
   * keeps SIGHUP to itself (a worker without a handler would die of it).
   */
  reloadOnHangup: boolean;
}

/** Messages from a worker to the primary. */
type WorkerMessage = { svc: 'listening'; base: string } | { svc: 'reloaded' };

function isWorkerMessage(message: unknown): message is WorkerMessage {
  return typeof message === 'object' && message !== null && 'svc' in message;
}

/**
 * Runs the supervisor in this (primary) process until SIGTERM/SIGINT. Resolves with the workers' base URL
 * once all N listen (logged as `workers ready`); rejects if a worker dies before all of them listened
 * (a start that fails, e.g. a store unreachable, fails once, instead of being retried forever).
 */
export function superviseWorkers(options: SupervisorOptions): Promise<string> {
  const { workers, log } = options;
  const minBackoffMs = options.minBackoffMs ?? 100;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const stableMs = options.stableMs ?? 30_000;
  const stopTimeoutMs = options.stopTimeoutMs ?? 15_000;
  const bornAt = new Map<Worker, number>();
  let deathsInARow = 0;
  let stopping = false;
  let ready = false;
  let base = '';
  const listening = new Set<Worker>();

  return new Promise((resolve, reject) => {
    const fork = () => {
      const worker = cluster.fork();
      bornAt.set(worker, Date.now());
      worker.on('message', (message: unknown) => {
        if (!isWorkerMessage(message)) return;
        if (message.svc === 'listening') {
          base = message.base;
          listening.add(worker);
          if (!ready && listening.size === workers) {
            ready = true;
            log.info({ base, workers, pids: [...listening].map((w) => w.process.pid) }, 'workers ready');
            resolve(base);
          }
        } else if (message.svc === 'reloaded') {
          // One worker reloaded through HTTP: the others must too, or answers would depend on the worker.
          for (const other of Object.values(cluster.workers ?? {})) if (other && other !== worker) other.process.kill('SIGHUP');
        }
      });
    };

    cluster.on('exit', (worker, code, signal) => {
      const lived = Date.now() - (bornAt.get(worker) ?? Date.now());
      bornAt.delete(worker);
      listening.delete(worker);
      if (stopping) return;
      if (!ready) {
        log.error({ pid: worker.process.pid, code, signal }, 'a worker died before every worker listened; stopping');
        void stopAll().then(() => reject(new Error(`a worker exited (${signal ?? `code ${code}`}) before every worker listened; its error is above`)));
        return;
      }
      deathsInARow = lived >= stableMs ? 1 : deathsInARow + 1;
      const delay = Math.min(maxBackoffMs, minBackoffMs * 2 ** (deathsInARow - 1));
      log.warn({ pid: worker.process.pid, code, signal, livedMs: lived, replaceInMs: delay }, 'worker died; replacing it');
      // Not unref'd: with every worker dead, this timer is what keeps the primary alive to replace them.
      setTimeout(() => {
        if (!stopping) fork();
      }, delay);
    });

    /** SIGTERM to every worker, and SIGKILL to those still there after stopTimeoutMs. */
    const stopAll = async () => {
      stopping = true;
      const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
      await Promise.all(
        alive.map(
          (worker) =>
            new Promise<void>((done) => {
              const killer = setTimeout(() => worker.process.kill('SIGKILL'), stopTimeoutMs);
              worker.once('exit', () => {
                clearTimeout(killer);
                done();
              });
              worker.process.kill('SIGTERM');
            }),
        ),
      );
    };

    const stop = (signal: string) => {
      if (stopping) return;
      log.info({ signal }, 'stopping workers');
      void stopAll().then(() => {
        log.info('workers stopped');
        // Let the logger's last lines out before the process ends.
        log.flush(() => process.exit(0));
      });
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGHUP', () => {
      if (!options.reloadOnHangup) return log.warn('SIGHUP ignored: these workers have no configuration to reload');
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGHUP');
    });

    for (let i = 0; i < workers; i++) fork();
  });
}

/** Worker side: tells the primary that this worker serves `base` (its URL with the context root; nothing outside a cluster). */
export function workerStarted(base: string): void {
  if (cluster.isWorker) process.send?.({ svc: 'listening', base } satisfies WorkerMessage);
}

/** Worker side: this worker reloaded its configuration by HTTP; the primary has the others reload too. */
export function workerReloaded(): void {
  if (cluster.isWorker) process.send?.({ svc: 'reloaded' } satisfies WorkerMessage);
}

/**
 * Worker side: SIGINT is for the primary (a terminal's Ctrl-C reaches the whole process group; a
 * worker stopping on its own would race with the primary and be replaced). The primary sends SIGTERM.
 */
export function ignoreInterruptInWorker(): void {
  if (cluster.isWorker) process.on('SIGINT', () => undefined);
}

export const isWorker = (): boolean => cluster.isWorker;

/**
 * The cores behind the gateway: requests are spread over the healthy ones (round robin); a core that
 * failed is skipped until its `/health` (at the core's own root) answers 200 again, which an unref'd
 * timer probes. With every core down, `pick` refuses with 502.
 */
import { request, type Dispatcher } from 'undici';
import { BadGateway } from '../../common/src/errors';
import type { GatewayMetrics, Logger } from './observability';

export interface CorePoolOptions {
  dispatcher: Dispatcher;
  probeIntervalMs: number;
  timeoutMs: number;
  log: Logger;
  metrics: GatewayMetrics;
}

/** Where a core's requests go: its origin and its `{base}` path without a trailing slash. */
export interface CoreTarget {
  origin: string;
  prefix: string;
}

export class CorePool {
  readonly #cores: readonly string[];
  /** Each core's target, parsed once: the cores are fixed for the pool's life. */
  readonly #targets: ReadonlyMap<string, CoreTarget>;
  readonly #failed = new Set<string>();
  readonly #options: CorePoolOptions;
  #next = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(cores: readonly string[], options: CorePoolOptions) {
    this.#cores = cores;
    this.#targets = new Map(cores.map((core) => {
      const base = new URL(core);
      return [core, { origin: base.origin, prefix: base.pathname.replace(/\/$/, '') }];
    }));
    this.#options = options;
    for (const core of cores) options.metrics.coreUp.set({ core }, 1);
  }

  get healthy(): string[] {
    return this.#cores.filter((core) => !this.#failed.has(core));
  }

  /** The next healthy core (round robin), skipping `exclude`. */
  pick(exclude: ReadonlySet<string> = new Set()): string {
    const candidates = this.healthy.filter((core) => !exclude.has(core));
    if (candidates.length === 0) throw new BadGateway('no core server is available');
    const core = candidates[this.#next % candidates.length];
    this.#next = (this.#next + 1) % 1_000_000;
    return core;
  }

  /** The origin and path prefix of one of the pool's cores. */
  target(core: string): CoreTarget {
    const target = this.#targets.get(core);
    if (target === undefined) throw new Error(`not a core of this gateway: ${core}`);
    return target;
  }

  markFailed(core: string): void {
    if (this.#failed.has(core)) return;
    this.#failed.add(core);
    this.#options.metrics.coreUp.set({ core }, 0);
    this.#options.log.warn({ event: 'core_down', core }, 'core unreachable; skipped until its /health answers');
    this.#timer ??= setInterval(() => void this.probe(), this.#options.probeIntervalMs).unref();
  }

  /** Probes every failed core once; exported for tests and called by the timer. */
  async probe(): Promise<void> {
    await Promise.all([...this.#failed].map(async (core) => {
      if (await this.#isHealthy(core)) {
        this.#failed.delete(core);
        this.#options.metrics.coreUp.set({ core }, 1);
        this.#options.log.info({ event: 'core_up', core }, 'core healthy again');
      }
    }));
    if (this.#failed.size === 0) this.#stopTimer();
  }

  close(): void {
    this.#stopTimer();
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #isHealthy(core: string): Promise<boolean> {
    try {
      const { dispatcher, timeoutMs } = this.#options;
      const answer = await request(new URL('/health', core), { dispatcher, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      await answer.body.dump();
      return answer.statusCode === 200;
    } catch {
      return false;
    }
  }
}

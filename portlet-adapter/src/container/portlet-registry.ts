/**
 * The lifecycle of JSR-168 PLT.5: one instance per portlet definition, `init` once before any
 * request, `destroy` once at shutdown. The rules for failures:
 * - `init` throws: the portlet is out, without `destroy`; an `UnavailableException` with seconds
 *   means a new instance is tried after that time, anything else means until restart.
 * - a request throws a permanent `UnavailableException`: `destroy`, then out until restart.
 * - a request throws one with seconds: out for that long, the same instance is used after.
 */
import { UnavailableException } from '../api/exceptions';
import type { Portlet } from '../api/portlet';
import type { PreferencesValidator } from '../api/preferences-validator';
import type { PortletApplication } from './descriptor/load';
import type { PortletDefinition } from './descriptor/types';
import { PortletConfigImpl } from './portlet-config-impl';
import type { PortletContextImpl } from './portlet-context-impl';
import type { ContainerLog } from './services';
import { withTimeLimit } from './time-limit';

export type Availability =
  | { kind: 'active'; portlet: Portlet; validator: PreferencesValidator | undefined }
  | { kind: 'unavailable'; reason: 'init_failed' | 'unavailable'; retryAt?: number };

interface Entry {
  definition: PortletDefinition;
  instance?: Portlet;
  validator?: PreferencesValidator;
  /** Set while the portlet is out; `retryAt` undefined: until restart. */
  out?: { reason: 'init_failed' | 'unavailable'; retryAt?: number; reinit: boolean };
  initializing?: Promise<void>;
}

export interface RegistryOptions {
  /** How long `init` and `destroy` may take. */
  lifecycleTimeoutMs: number;
  now?: () => number;
}

export class PortletRegistry {
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;
  #destroyed = false;

  constructor(
    private readonly application: PortletApplication,
    private readonly context: PortletContextImpl,
    private readonly log: ContainerLog,
    private readonly options: RegistryOptions,
  ) {
    this.#now = options.now ?? Date.now;
    for (const definition of application.descriptor.portlets) this.#entries.set(definition.name, { definition });
  }

  /** Creates and initialises every portlet, concurrently; failures are logged and leave the portlet out. */
  async initAll(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((entry) => this.#init(entry)));
  }

  definition(name: string): PortletDefinition | undefined {
    return this.#entries.get(name)?.definition;
  }

  /** The instance to use now, or why there is none. */
  async acquire(name: string): Promise<Availability> {
    const entry = this.#entries.get(name);
    if (entry === undefined || this.#destroyed) return { kind: 'unavailable', reason: 'unavailable' };
    if (entry.initializing) await entry.initializing;
    if (entry.out !== undefined) {
      const { retryAt, reason, reinit } = entry.out;
      if (retryAt === undefined || this.#now() < retryAt) return { kind: 'unavailable', reason, retryAt };
      if (reinit) {
        await this.#init(entry);
        if (entry.out !== undefined) return { kind: 'unavailable', reason: entry.out.reason, retryAt: entry.out.retryAt };
      } else entry.out = undefined;
    }
    return { kind: 'active', portlet: entry.instance!, validator: entry.validator };
  }

  /** A request's failure: an UnavailableException takes the portlet out (PLT.5.2.4.1). */
  async failed(name: string, error: unknown): Promise<void> {
    const entry = this.#entries.get(name);
    if (entry === undefined || !(error instanceof UnavailableException) || entry.out !== undefined) return;
    if (!error.isPermanent()) {
      entry.out = { reason: 'unavailable', retryAt: this.#now() + error.getUnavailableSeconds() * 1000, reinit: false };
      this.log.warn({ portlet: name, seconds: error.getUnavailableSeconds() }, 'portlet temporarily unavailable');
      return;
    }
    entry.out = { reason: 'unavailable', reinit: false };
    this.log.warn({ portlet: name }, 'portlet permanently unavailable: destroyed until restart');
    await this.#destroy(entry);
  }

  /** Calls `destroy` on every portlet in service (once); afterwards nothing is served. */
  async destroyAll(): Promise<void> {
    if (this.#destroyed) return;
    this.#destroyed = true;
    await Promise.all([...this.#entries.values()].filter((e) => e.out === undefined && e.instance).map((e) => this.#destroy(e)));
  }

  #init(entry: Entry): Promise<void> {
    const run = async () => {
      const { definition } = entry;
      entry.instance = undefined;
      try {
        const instance = new (this.application.portletClass(definition.name))();
        const Validator = this.application.validatorClass(definition.name);
        entry.validator = Validator === undefined ? undefined : new Validator();
        await withTimeLimit(() => instance.init(new PortletConfigImpl(definition, this.context)), this.options.lifecycleTimeoutMs);
        entry.instance = instance;
        entry.out = undefined;
      } catch (error) {
        const seconds = error instanceof UnavailableException && !error.isPermanent() ? error.getUnavailableSeconds() : undefined;
        entry.out = { reason: 'init_failed', retryAt: seconds === undefined ? undefined : this.#now() + seconds * 1000, reinit: true };
        this.log.error({ portlet: definition.name, err: error, retrySeconds: seconds }, 'portlet init failed: the portlet is out of service');
      }
    };
    entry.initializing = run().finally(() => (entry.initializing = undefined));
    return entry.initializing;
  }

  async #destroy(entry: Entry): Promise<void> {
    const instance = entry.instance;
    entry.instance = undefined;
    if (instance === undefined) return;
    try {
      await withTimeLimit(() => instance.destroy(), this.options.lifecycleTimeoutMs);
    } catch (error) {
      this.log.error({ portlet: entry.definition.name, err: error }, 'portlet destroy failed');
    }
  }
}

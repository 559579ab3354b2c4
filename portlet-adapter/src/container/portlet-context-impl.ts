import type { PortletContext } from '../api/portlet-context';
import type { PortletApplicationDescriptor } from './descriptor/types';
import type { ContainerLog } from './services';

/** The application's context: one per container. */
export class PortletContextImpl implements PortletContext {
  readonly #attributes = new Map<string, unknown>();

  constructor(
    private readonly descriptor: PortletApplicationDescriptor,
    private readonly serverInfo: string,
    private readonly containerLog: ContainerLog,
  ) {}

  getServerInfo(): string {
    return this.serverInfo;
  }
  getPortletContextName(): string {
    return this.descriptor.application;
  }
  getMajorVersion(): number {
    return 1;
  }
  getMinorVersion(): number {
    return 0;
  }
  getAttribute(name: string): unknown {
    return this.#attributes.get(name) ?? null;
  }
  setAttribute(name: string, value: unknown): void {
    if (value === null || value === undefined) this.#attributes.delete(name);
    else this.#attributes.set(name, value);
  }
  removeAttribute(name: string): void {
    this.#attributes.delete(name);
  }
  getAttributeNames(): string[] {
    return [...this.#attributes.keys()];
  }
  getInitParameter(name: string): string | null {
    return Object.hasOwn(this.descriptor.initParams, name) ? this.descriptor.initParams[name] : null;
  }
  getInitParameterNames(): string[] {
    return Object.keys(this.descriptor.initParams);
  }
  log(message: string, error?: unknown): void {
    const fields: Record<string, unknown> = { application: this.descriptor.application };
    if (error === undefined) this.containerLog.info(fields, message);
    else this.containerLog.error({ ...fields, err: error }, message);
  }
}

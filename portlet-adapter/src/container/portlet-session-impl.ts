import { IllegalArgumentException, IllegalStateException } from '../api/exceptions';
import type { PortletContext } from '../api/portlet-context';
import { PortletSession } from '../api/portlet-session';
import type { ApplicationSession, SessionAccess } from './services';

const PORTLET_SCOPE_PREFIX = 'javax.portlet.p.';

/** The attribute name of a portlet-scoped attribute (JSR-168 PLT.15.3): `javax.portlet.p.<windowId>?<name>`. */
export function portletScopedName(windowId: string, name: string): string {
  return `${PORTLET_SCOPE_PREFIX}${windowId}?${name}`;
}

/**
 * One window's view of the application session. For a visitor it is made only on the first
 * `setAttribute`, and it travels in the visitor's cookie (SPEC 10.2): a value that would not fit is
 * refused with IllegalStateException and nothing changes.
 */
export class PortletSessionImpl implements PortletSession {
  #invalidated = false;
  readonly #prefix: string;

  constructor(
    private readonly access: SessionAccess,
    windowId: string,
    private readonly context: PortletContext,
    private readonly startedNew: boolean,
  ) {
    this.#prefix = `${PORTLET_SCOPE_PREFIX}${windowId}?`;
  }

  getAttribute(name: string, scope: number = PortletSession.PORTLET_SCOPE): unknown {
    const session = this.#session(false);
    return session?.attributes.get(this.#key(name, scope)) ?? null;
  }

  getAttributeNames(scope: number = PortletSession.PORTLET_SCOPE): string[] {
    this.#key('x', scope);
    const names = [...(this.#session(false)?.attributes.keys() ?? [])];
    if (scope === PortletSession.PORTLET_SCOPE) return names.filter((n) => n.startsWith(this.#prefix)).map((n) => n.slice(this.#prefix.length));
    // Another window's private attributes are not the application's to list.
    return names.filter((n) => !n.startsWith(PORTLET_SCOPE_PREFIX));
  }

  setAttribute(name: string, value: unknown, scope: number = PortletSession.PORTLET_SCOPE): void {
    if (value === null || value === undefined) return this.removeAttribute(name, scope);
    const key = this.#key(name, scope);
    const session = this.#session(true)!;
    const had = session.attributes.has(key);
    const previous = session.attributes.get(key);
    session.attributes.set(key, value);
    try {
      session.assertWithinBudget?.();
    } catch (error) {
      if (had) session.attributes.set(key, previous);
      else session.attributes.delete(key);
      throw error;
    }
  }

  removeAttribute(name: string, scope: number = PortletSession.PORTLET_SCOPE): void {
    const key = this.#key(name, scope);
    this.#session(false)?.attributes.delete(key);
  }

  invalidate(): void {
    this.#session(false)?.invalidate();
    this.#invalidated = true;
  }

  isNew(): boolean {
    this.#check();
    const session = this.access.current();
    return session === undefined || session.isNew || this.startedNew;
  }

  getId(): string {
    this.#check();
    return this.access.current()?.id ?? this.access.handle;
  }

  getCreationTime(): number {
    this.#check();
    return this.access.current()?.creationTime ?? Date.now();
  }

  getLastAccessedTime(): number {
    this.#check();
    return this.access.current()?.lastAccessedTime ?? Date.now();
  }

  getMaxInactiveInterval(): number {
    this.#check();
    return this.access.current()?.maxInactiveInterval ?? 0;
  }

  setMaxInactiveInterval(seconds: number): void {
    this.#session(true)!.maxInactiveInterval = seconds;
  }

  getPortletContext(): PortletContext {
    return this.context;
  }

  #check(): void {
    if (this.#invalidated) throw new IllegalStateException('the portlet session was invalidated');
  }

  #session(create: boolean): ApplicationSession | undefined {
    this.#check();
    return create ? this.access.create() : this.access.current();
  }

  #key(name: string, scope: number): string {
    if (typeof name !== 'string' || name === '') throw new IllegalArgumentException('an attribute name must be a non-empty string');
    if (scope === PortletSession.PORTLET_SCOPE) return this.#prefix + name;
    if (scope === PortletSession.APPLICATION_SCOPE) return name;
    throw new IllegalArgumentException(`unknown scope ${String(scope)}`);
  }
}

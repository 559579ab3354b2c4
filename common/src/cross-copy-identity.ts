/**
 * Identity that holds across copies of svc's code in one process. A portlet's own package imports
 * @svc/portlet-api, while the portal that runs it has its own compiled copy of the same classes (svc's
 * dist): an UnavailableException the portlet throws, or the SvcClientError of the gateway client the
 * portal hands it, would fail a plain `instanceof` against the other copy's class, and the portal's
 * PortletMode.EDIT would not be `===` the portlet's. So the instances of a branded hierarchy carry the
 * names of their classes under a Symbol.for key (one key per process, whatever the copy), and the
 * hierarchy's root answers `instanceof` from them; and constants come from a process-wide registry.
 * Dependency-free: the client and portlet packages carry it.
 */
const BRANDS = Symbol.for('svc.class-brands');

type Class = abstract new (...args: never[]) => unknown;

/** Marks `instance` with the names of `newTarget`'s classes up to `root`; the root's constructor calls it. */
export function brand(instance: object, newTarget: Class, root: Class): void {
  const names: string[] = [];
  for (let current: unknown = newTarget; typeof current === 'function'; current = Object.getPrototypeOf(current)) {
    names.push((current as Class).name);
    if (current === root) break;
  }
  Object.defineProperty(instance, BRANDS, { value: Object.freeze(names) });
}

/** The root's `static [Symbol.hasInstance]`: an instance of `target` itself, or of another copy's class of that name. */
export function isBranded(target: Class, value: unknown): boolean {
  if (Function.prototype[Symbol.hasInstance].call(target, value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  const names = (value as { [BRANDS]?: unknown })[BRANDS];
  return Array.isArray(names) && names.includes(target.name);
}

/** The one instance of `name` under `key` in this process, made by `create` the first time any copy asks. */
export function processWide<T>(key: symbol, name: string, create: () => T): T {
  const registry = globalThis as { [key: symbol]: Map<string, T> | undefined };
  const shared = (registry[key] ??= new Map());
  let found = shared.get(name);
  if (found === undefined) shared.set(name, (found = create()));
  return found;
}

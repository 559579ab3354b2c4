import type { Core } from './core';

/**
 * `make(core)` once per core, then the same object: for services that keep state across requests
 * (counters, caches) and are reached from several routes, which must share it.
 */
export function perCore<T>(make: (core: Core) => T): (core: Core) => T {
  const made = new WeakMap<Core, T>();
  return (core) => {
    let value = made.get(core);
    if (value === undefined) {
      value = make(core);
      made.set(core, value);
    }
    return value;
  };
}

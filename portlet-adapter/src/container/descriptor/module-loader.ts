import { dirname, isAbsolute, resolve } from 'node:path';

/**
 * Resolves a descriptor's class reference (`./counter.js#CounterPortlet`, `some-package#Name`;
 * without `#` the module's `default` export) to the class, relative to the descriptor's folder.
 * The descriptor is trusted configuration: its modules run in the portal's process.
 */
export async function loadClass(reference: string, descriptorPath: string): Promise<new () => unknown> {
  const hash = reference.lastIndexOf('#');
  const specifier = hash < 0 ? reference : reference.slice(0, hash);
  const exportName = hash < 0 ? 'default' : reference.slice(hash + 1);
  if (!specifier || !exportName) throw new Error(`"${reference}" is not "module#Export"`);
  const base = dirname(descriptorPath);
  const target = specifier.startsWith('.') || isAbsolute(specifier) ? resolve(base, specifier) : require.resolve(specifier, { paths: [base] });
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(target)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`cannot load ${specifier}: ${firstLine(error)}`);
  }
  // A CommonJS module seen through import(): its exports may sit under `default` too.
  const nested = loaded.default as Record<string, unknown> | undefined;
  const found = loaded[exportName] ?? (exportName !== 'default' && nested && typeof nested === 'object' ? nested[exportName] : undefined);
  if (typeof found !== 'function') throw new Error(`${specifier} has no class export "${exportName}"`);
  return found as new () => unknown;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0];
}

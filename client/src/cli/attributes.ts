/**
 * Attribute arguments of `create` and `update`: `name=value`; a name given twice, or written
 * `name[]=value`, is a list; `name=` removes the attribute (update).
 */
import type { AttributeChanges } from '../types';

export class UsageError extends Error {}

/** A failure with what to do about it: main.ts prints the failure's own reason, then the hint. */
export class HintedError extends Error {
  constructor(
    readonly failure: unknown,
    readonly hint: string,
  ) {
    super(hint);
  }
}

export function parseAttributes(args: readonly string[]): AttributeChanges {
  const out: AttributeChanges = {};
  const lists = new Set<string>();
  for (const arg of args) {
    const eq = arg.indexOf('=');
    if (eq <= 0) throw new UsageError(`expected name=value, got "${arg}"`);
    let name = arg.slice(0, eq);
    const value = arg.slice(eq + 1);
    if (name.endsWith('[]')) {
      name = name.slice(0, -2);
      lists.add(name);
    }
    const before = out[name];
    if (value === '' && !lists.has(name)) out[name] = null;
    else if (before === undefined || before === null) out[name] = lists.has(name) ? [value] : value;
    else out[name] = [...(Array.isArray(before) ? before : [before]), value];
  }
  for (const name of lists) if (out[name] === null) out[name] = [];
  return out;
}

import { IllegalArgumentException } from '../api/exceptions';

export type Parameters = Readonly<Record<string, readonly string[]>>;

/**
 * A parameter map from a portlet's arguments, checked as JSR-168 does (a name is a non-empty
 * string, a value a string or a list of strings: `IllegalArgumentException` otherwise) and frozen,
 * with no prototype so that `__proto__` is an ordinary name.
 */
export function toParameters(input: Readonly<Record<string, string | readonly string[]>>): Parameters {
  if (input === null || typeof input !== 'object') throw new IllegalArgumentException('parameters must be a map');
  const out: Record<string, readonly string[]> = Object.create(null) as Record<string, readonly string[]>;
  for (const name of Object.keys(input)) out[name] = parameterValues(name, input[name]);
  return Object.freeze(out);
}

export function parameterValues(name: unknown, value: unknown): readonly string[] {
  if (typeof name !== 'string' || name === '') throw new IllegalArgumentException('a parameter name must be a non-empty string');
  // The usual value, one string: one frozen array rather than a copy of one.
  if (typeof value === 'string') return Object.freeze([value]);
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new IllegalArgumentException(`parameter "${name}": a value must be a string or a list of strings`);
  }
  return Object.freeze([...(value as string[])]);
}

/** The map with one parameter replaced. */
export function withParameter(parameters: Parameters, name: string, value: string | readonly string[]): Parameters {
  const values = parameterValues(name, value);
  const out: Record<string, readonly string[]> = Object.assign(Object.create(null) as Record<string, readonly string[]>, parameters);
  out[name] = values;
  return Object.freeze(out);
}

export const NO_PARAMETERS: Parameters = Object.freeze(Object.create(null) as Record<string, readonly string[]>);

/**
 * What every process's configuration loader does the same way (SPEC section 2): read a JSON file,
 * replace `${ENV_NAME}` from the environment, report every JSON Schema error by path
 * (`clients[2].authenticators[0]: …`), and freeze the result. Each process keeps its own schema,
 * defaults and cross-section checks.
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject } from 'ajv';

/** `/clients/2/authenticators/0` → `clients[2].authenticators[0]`. */
export function pathOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

/** One ajv error as `path: message`, naming the unknown or missing property. */
export function describeSchemaError(error: ErrorObject): string {
  const at = pathOf(error.instancePath) || '(root)';
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') return `${at}: unknown property "${String(params.additionalProperty)}"`;
  if (error.keyword === 'required') return `${at}: missing property "${String(params.missingProperty)}"`;
  if (error.keyword === 'enum') {
    const allowed = params.allowedValues as unknown[];
    // A long list (e.g. every P3P user attribute name) would drown the message: the schema has it.
    return allowed.length > 12 ? `${at}: not one of the ${allowed.length} names the schema allows` : `${at}: must be one of ${JSON.stringify(allowed)}`;
  }
  return `${at}: ${error.message ?? error.keyword}`;
}

/** Replaces `${NAME}` in every string from the environment; a missing variable is a problem at its path. */
export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, problems: string[], path = ''): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
      const found = env[name];
      if (found === undefined) {
        problems.push(`${path || '(root)'}: environment variable ${name} is not set`);
        return '';
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => substituteEnv(v, env, problems, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteEnv(v, env, problems, path ? `${path}.${k}` : k)]));
  }
  return value;
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/** The parsed JSON of a file, or the problems (`(file): …`) of reading it. */
export function readJsonFile(path: string): { document: unknown } | { problems: string[] } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { problems: [`(file): cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`] };
  }
  try {
    return { document: JSON.parse(text) };
  } catch (error) {
    return { problems: [`(file): ${path} is not valid JSON: ${(error as Error).message}`] };
  }
}

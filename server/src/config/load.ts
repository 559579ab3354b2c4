import { readFileSync } from 'node:fs';
import Ajv, { type ErrorObject } from 'ajv';
import { configSchema } from './schema';
import { checkReferences } from './references';
import type { SvcConfig } from './types';
import { defaultPolicies } from '../policy/default-policies';

/** A configuration that failed to load; `problems` lists every error, each prefixed by its path. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, allowUnionTypes: true });
const validateSchema = ajv.compile(configSchema);

/** `/clients/2/authenticators/0` → `clients[2].authenticators[0]`. */
export function pathOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function describe(error: ErrorObject): string {
  const at = pathOf(error.instancePath) || '(root)';
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') return `${at}: unknown property "${String(params.additionalProperty)}"`;
  if (error.keyword === 'required') return `${at}: missing property "${String(params.missingProperty)}"`;
  if (error.keyword === 'enum') return `${at}: must be one of ${JSON.stringify(params.allowedValues)}`;
  return `${at}: ${error.message ?? error.keyword}`;
}

/** Replaces `${NAME}` in every string from the environment; a missing variable is an error. */
function substitute(value: unknown, env: NodeJS.ProcessEnv, path: string, problems: string[]): unknown {
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
  if (Array.isArray(value)) return value.map((v, i) => substitute(v, env, `${path}[${i}]`, problems));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, substitute(v, env, path ? `${path}.${k}` : k, problems)]),
    );
  }
  return value;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/** Validates a parsed document and returns the frozen configuration, or throws ConfigError. */
export function buildConfig(document: unknown, env: NodeJS.ProcessEnv = process.env): SvcConfig {
  const problems: string[] = [];
  const substituted = substitute(structuredClone(document), env, '', problems);
  if (problems.length) throw new ConfigError(problems);
  if (!validateSchema(substituted)) {
    throw new ConfigError((validateSchema.errors ?? []).map(describe));
  }
  const raw = substituted as unknown as Record<string, unknown> & { clients: Array<Record<string, unknown>> };
  for (const client of raw.clients) {
    if (typeof client.secret === 'string') client.secret = [client.secret];
    if (client.defaultContext === undefined) client.defaultContext = (client.contexts as string[])[0];
  }
  if (raw.policies === undefined) raw.policies = defaultPolicies(raw.contexts as SvcConfig['contexts']);
  const config = raw as unknown as SvcConfig;
  const referenceProblems = checkReferences(config);
  if (referenceProblems.length) throw new ConfigError(referenceProblems);
  return deepFreeze(config);
}

/** Reads, substitutes, validates and freezes a configuration file. */
export function loadConfigFile(path: string, env: NodeJS.ProcessEnv = process.env): SvcConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`(file): cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`]);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([`(file): ${path} is not valid JSON: ${(error as Error).message}`]);
  }
  return buildConfig(document, env);
}

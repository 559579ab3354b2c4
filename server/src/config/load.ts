import Ajv from 'ajv';
import { deepFreeze, describeSchemaError, readJsonFile, substituteEnv } from '../../../common/src/config/document';
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

/** Validates a parsed document and returns the frozen configuration, or throws ConfigError. */
export function buildConfig(document: unknown, env: NodeJS.ProcessEnv = process.env): SvcConfig {
  const problems: string[] = [];
  const substituted = substituteEnv(structuredClone(document), env, problems);
  if (problems.length) throw new ConfigError(problems);
  if (!validateSchema(substituted)) {
    throw new ConfigError((validateSchema.errors ?? []).map(describeSchemaError));
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
  const read = readJsonFile(path);
  if ('problems' in read) throw new ConfigError(read.problems);
  return buildConfig(read.document, env);
}

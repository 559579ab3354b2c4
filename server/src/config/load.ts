import Ajv from 'ajv';
import { deepFreeze, describeSchemaError, readJsonFile, substituteEnv } from '../../../common/src/config/document';
import { configSchema } from './schema';
import { checkReferences } from './references';
import { settingsOf } from './settings';
import type { ConfigDocument, SvcConfig } from './types';
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

/**
 * Validates a parsed document and returns the frozen configuration, or throws ConfigError listing
 * every problem by path: the schema's first, then the cross-references' (SPEC 2). The reference
 * checks run on a schema-invalid document too, on what of it can be checked. The `global` section
 * arrives as the typed `settings` (settings.ts).
 */
export function buildConfig(document: unknown, env: NodeJS.ProcessEnv = process.env): SvcConfig {
  const problems: string[] = [];
  const substituted = substituteEnv(structuredClone(document), env, problems);
  if (problems.length) throw new ConfigError(problems);
  const schemaValid = validateSchema(substituted);
  const schemaProblems = schemaValid ? [] : (validateSchema.errors ?? []).map(describeSchemaError);
  const raw = substituted as Record<string, unknown>;
  if (raw && typeof raw === 'object' && Array.isArray(raw.clients)) {
    for (const client of raw.clients as unknown[]) {
      if (!client || typeof client !== 'object') continue;
      const record = client as Record<string, unknown>;
      if (typeof record.secret === 'string') record.secret = [record.secret];
      if (record.defaultContext === undefined && Array.isArray(record.contexts) && typeof record.contexts[0] === 'string') {
        record.defaultContext = record.contexts[0];
      }
    }
  }
  // The default policies are built from valid contexts only; an invalid document is refused anyway.
  if (schemaValid && raw.policies === undefined) raw.policies = defaultPolicies(raw.contexts as SvcConfig['contexts'], { scim: (raw.scim as SvcConfig['scim']).clients.length > 0 });
  const referenceProblems = checkReferences(substituted);
  if (schemaProblems.length || referenceProblems.length) throw new ConfigError([...schemaProblems, ...referenceProblems]);
  const { global, ...sections } = substituted as ConfigDocument;
  return deepFreeze({ ...sections, settings: settingsOf(global) });
}

/** The parsed JSON of a configuration file, as written (no substitution, no validation). */
export function readConfigDocument(path: string): unknown {
  const read = readJsonFile(path);
  if ('problems' in read) throw new ConfigError(read.problems);
  return read.document;
}

/** Reads, substitutes, validates and freezes a configuration file. */
export function loadConfigFile(path: string, env: NodeJS.ProcessEnv = process.env): SvcConfig {
  return buildConfig(readConfigDocument(path), env);
}

/**
 * Where a connection finds its client id, shared secret and base address (seed 5.3 item 1). Three
 * sources, a later one winning, as for the server's settings: a JSON file, the environment
 * (SVC_BASE_URL, SVC_CLIENT_ID, SVC_CLIENT_SECRET), an object given in code.
 *
 * @example
 *   const config = loadClientConfig({ file: '/etc/svc/client.json' });  // + environment
 *   const config = loadClientConfig({ config: { baseUrl: 'http://127.0.0.1:8080/svc', clientId: 'svc-web' }, env: false });
 */
import { readFileSync, statSync } from 'node:fs';

export interface ClientConfig {
  /** `{base}`: the core's root including its context root, e.g. `http://127.0.0.1:8080/svc`. */
  baseUrl: string;
  /** Absent: the server's global default client. */
  clientId?: string;
  /** The client's shared secret (SPEC section 5); only for a client configured with one. */
  secret?: string;
}

export interface ConfigSources {
  /** Values given in code; they win over the environment and the file. */
  config?: Partial<ClientConfig>;
  /** The environment to read (default `process.env`); `false` reads none. */
  env?: Record<string, string | undefined> | false;
  /** A JSON file `{"baseUrl","clientId","secret"}`; default `SVC_CLIENT_CONFIG` from the environment. */
  file?: string;
}

const KEYS = ['baseUrl', 'clientId', 'secret'] as const;

/** Reads, merges and validates; throws TypeError naming the problem (a caller mistake, not a server answer). */
export function loadClientConfig(sources: ConfigSources = {}): ClientConfig {
  const env = sources.env === false ? {} : (sources.env ?? process.env);
  const file = sources.file ?? env.SVC_CLIENT_CONFIG;
  const merged: Partial<ClientConfig> = {
    ...(file ? readConfigFile(file) : {}),
    ...definedOnly({ baseUrl: env.SVC_BASE_URL, clientId: env.SVC_CLIENT_ID, secret: env.SVC_CLIENT_SECRET }),
    ...definedOnly(sources.config ?? {}),
  };
  return validateClientConfig(merged);
}

export function validateClientConfig(config: Partial<ClientConfig>): ClientConfig {
  const { baseUrl, clientId, secret } = config;
  if (typeof baseUrl !== 'string' || baseUrl === '') throw new TypeError('svc client: baseUrl is required (SVC_BASE_URL)');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`svc client: baseUrl is not a URL: ${baseUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('svc client: baseUrl must be http or https');
  if (url.search || url.hash || url.username || url.password) throw new TypeError('svc client: baseUrl takes no query, fragment or user info');
  if (clientId !== undefined && (typeof clientId !== 'string' || clientId === '')) throw new TypeError('svc client: clientId must be a non-empty string');
  if (secret !== undefined && typeof secret !== 'string') throw new TypeError('svc client: secret must be a string');
  if (secret !== undefined && clientId === undefined) throw new TypeError('svc client: a secret needs its clientId');
  // Relative paths are resolved against {base}, so it must not end with a slash.
  const result: ClientConfig = { baseUrl: url.href.replace(/\/+$/, '') };
  if (clientId !== undefined) result.clientId = clientId;
  if (secret !== undefined) result.secret = secret;
  return Object.freeze(result);
}

/**
 * A file holding a secret must be readable by its owner only (like ssh keys): a secret others can
 * read is refused rather than used.
 */
function readConfigFile(path: string): Partial<ClientConfig> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new TypeError(`svc client: cannot read the config file ${path}: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new TypeError(`svc client: ${path} must hold a JSON object`);
  const doc = parsed as Record<string, unknown>;
  const unknownKeys = Object.keys(doc).filter((k) => !(KEYS as readonly string[]).includes(k));
  if (unknownKeys.length) throw new TypeError(`svc client: ${path}: unknown member ${unknownKeys[0]}`);
  for (const key of KEYS) {
    if (doc[key] !== undefined && typeof doc[key] !== 'string') throw new TypeError(`svc client: ${path}: ${key} must be a string`);
  }
  if (doc.secret !== undefined && process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) {
    throw new TypeError(`svc client: ${path} holds a secret and is readable by others; chmod 600 it`);
  }
  return doc as Partial<ClientConfig>;
}

function definedOnly(values: Partial<ClientConfig>): Partial<ClientConfig> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== '')) as Partial<ClientConfig>;
}

/**
 * The gateway's configuration (SPEC section 9): `{"gateway": {...}}` in one JSON file, validated with
 * ajv; every problem is reported by path (`gateway.portals[0].secret: ...`). Defaults live here only.
 */
import { readFileSync } from 'node:fs';
import Ajv, { type ErrorObject } from 'ajv';
import { DEFAULT_REDIS_COMMAND_TIMEOUT_MS } from '../../common/src/redis/command-timeout';
import { redisSettingsProblems } from '../../common/src/redis/trust';
import { DEFAULT_LOG, logSchema, logSettings, type LogSettings } from '../../common/src/request-log-settings';

export interface PortalConfig {
  id: string;
  /** One secret, or two during a rotation (either verifies). */
  secret: string | string[];
}

export interface GatewayConfig {
  host: string;
  port: number;
  /** The gateway's context root, e.g. `/gw`. */
  root: string;
  /** `{base}` of each core, e.g. `http://127.0.0.1:8080/svc`. */
  cores: string[];
  clientId: string;
  secret: string;
  portals: PortalConfig[];
  /** A core slower than this answers 504. */
  coreTimeoutMs: number;
  /** Request bodies are buffered up to this many bytes (so that a renewal can retry); more is 413. */
  bodyLimit: number;
  /** Most core sessions held in memory; the least recently used goes first (not used with `redis`: Redis bounds them). */
  sessionCacheSize: number;
  /** A cached core session is used for at most this long, then a new login is made. */
  sessionTtlSeconds: number;
  /**
   * Most assertion nonces held at once (about 45 bytes each). Each is kept 180 s (SPEC section 9),
   * held to the whole second after, so this bounds the sustained rate at nonceCacheSize / 181
   * requests a second; beyond it the gateway answers 503 rather than forget a nonce that could still
   * be replayed. Sized for the gateway's peak rate (the default: 2 000 000, 11 000 a second, above
   * the 9 700 a second one gateway process served in the bench), so that a flood at that rate never
   * gets a 503 from it.
   */
  nonceCacheSize: number;
  /** How often a failed core's /health is probed. */
  probeIntervalMs: number;
  /**
   * Query parameter names stripped beside svc's defaults (`clientid`, `clientcred`, `user`,
   * `password`, `token`): the core's renamed `auth.token.name.*`, so they cannot pass either.
   */
  credentialParameters: readonly string[];
  /** `log.requests`: which requests get a log line (common/src/request-log-settings.ts). */
  log: LogSettings;
  /**
   * Shared by every gateway and worker on the same Redis and prefix (SPEC section 12): the assertion
   * replay cache and the principal → core-session map (for cores that share their sessions in Redis).
   * Absent: both in this process's memory.
   */
  redis?: {
    url: string;
    password?: string;
    prefix: string;
    /** A command unanswered this long fails and its request is refused (503); the loader fills 2000. */
    commandTimeoutMs?: number;
  };
}

export const GATEWAY_DEFAULTS = {
  host: '127.0.0.1',
  port: 8081,
  root: '/gw',
  clientId: 'portal-gateway',
  coreTimeoutMs: 10_000,
  bodyLimit: 1024 * 1024,
  sessionCacheSize: 10_000,
  sessionTtlSeconds: 900,
  nonceCacheSize: 2_000_000,
  probeIntervalMs: 2_000,
  credentialParameters: [] as string[],
  log: DEFAULT_LOG,
} as const;

/** `gateway.redis.prefix` by default: the gateways' keys, apart from the cores' (`svc:`). */
export const GATEWAY_REDIS_PREFIX = 'svc-gw:';

const secret = { type: 'string', minLength: 43 };
export const gatewaySchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'urn:svc:schema:gateway.json',
  title: 'svc gateway configuration',
  type: 'object',
  required: ['gateway'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    gateway: {
      type: 'object',
      required: ['cores', 'secret', 'portals'],
      additionalProperties: false,
      properties: {
        host: { type: 'string', minLength: 1 },
        port: { type: 'integer', minimum: 0, maximum: 65535 },
        root: { type: 'string', pattern: '^(/[A-Za-z0-9._~-]+)+$' },
        cores: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^https?://[^?#]+[^/?#]$' } },
        clientId: { type: 'string', minLength: 1 },
        secret,
        portals: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['id', 'secret'],
            additionalProperties: false,
            properties: {
              id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
              secret: { oneOf: [secret, { type: 'array', minItems: 1, maxItems: 2, items: secret }] },
            },
          },
        },
        coreTimeoutMs: { type: 'integer', minimum: 1 },
        bodyLimit: { type: 'integer', minimum: 0 },
        sessionCacheSize: { type: 'integer', minimum: 1 },
        nonceCacheSize: { type: 'integer', minimum: 1 },
        sessionTtlSeconds: { type: 'integer', minimum: 1 },
        probeIntervalMs: { type: 'integer', minimum: 10 },
        credentialParameters: { type: 'array', items: { type: 'string', minLength: 1 } },
        log: logSchema,
        redis: {
          type: 'object',
          required: ['url'],
          additionalProperties: false,
          properties: {
            url: { type: 'string', pattern: '^rediss?://' },
            password: { type: 'string', minLength: 1 },
            prefix: { type: 'string', pattern: '^[\\x21-\\x7e]{1,64}$' },
            commandTimeoutMs: { type: 'integer', minimum: 1 },
          },
        },
      },
    },
  },
} as const;

export class GatewayConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid gateway configuration:\n  ${problems.join('\n  ')}`);
    this.problems = problems;
  }
}

const validate = new Ajv({ allErrors: true, strict: true }).compile(gatewaySchema);

/** `/gateway/portals/0/secret` → `gateway.portals[0].secret`. */
function pathOf(error: ErrorObject): string {
  const parts = error.instancePath.split('/').slice(1);
  if (error.keyword === 'required') parts.push(String((error.params as { missingProperty: string }).missingProperty));
  if (error.keyword === 'additionalProperties') parts.push(String((error.params as { additionalProperty: string }).additionalProperty));
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '') || '(root)';
}

/** Validates a configuration document and fills the defaults; throws GatewayConfigError listing every problem. */
export function buildGatewayConfig(doc: unknown, env: Record<string, string | undefined> = {}): GatewayConfig {
  if (!validate(doc)) {
    const problems = (validate.errors ?? []).map((e) => `${pathOf(e)}: ${e.keyword === 'required' ? 'is required' : e.keyword === 'additionalProperties' ? 'is not allowed' : e.message ?? 'invalid'}`);
    throw new GatewayConfigError([...new Set(problems)]);
  }
  const given = (doc as { gateway: Partial<GatewayConfig> }).gateway;
  const port = env.SVC_GATEWAY_PORT === undefined ? given.port : Number(env.SVC_GATEWAY_PORT);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new GatewayConfigError(['SVC_GATEWAY_PORT: must be a port number']);
  const ids = (given.portals ?? []).map((p) => p.id);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate) throw new GatewayConfigError([`gateway.portals: portal "${duplicate}" is listed twice`]);
  const redis = given.redis && { ...given.redis, prefix: given.redis.prefix ?? GATEWAY_REDIS_PREFIX, commandTimeoutMs: given.redis.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS };
  if (redis) {
    const problems = redisSettingsProblems('gateway.redis', redis.url, redis.password);
    if (problems.length) throw new GatewayConfigError(problems);
  }
  return Object.freeze({ ...GATEWAY_DEFAULTS, ...given, log: logSettings(given.log), ...(redis ? { redis } : {}), ...(port === undefined ? {} : { port }) } as GatewayConfig);
}

/** Reads `path` (JSON) and builds the configuration; the environment's SVC_GATEWAY_PORT wins over the file. */
export function loadGatewayConfigFile(path: string, env: Record<string, string | undefined> = process.env): GatewayConfig {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new GatewayConfigError([`${path}: ${(error as Error).message}`]);
  }
  return buildGatewayConfig(substituteEnv(doc, env), env);
}

/** `${NAME}` inside any string is replaced from the environment (SPEC section 2); an unset name is an error. */
export function substituteEnv(value: unknown, env: Record<string, string | undefined>, missing: string[] = []): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
      if (env[name] === undefined) missing.push(name);
      return env[name] ?? '';
    });
  }
  if (Array.isArray(value)) return value.map((item) => substituteEnv(item, env, missing));
  if (value && typeof value === 'object') {
    const result = Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteEnv(item, env, missing)]));
    if (missing.length) throw new GatewayConfigError(missing.map((name) => `\${${name}}: not set in the environment`));
    return result;
  }
  return value;
}

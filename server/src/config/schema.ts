import { logSchema } from '../../../common/src/request-log-settings';
import { DEFAULT_ADMIN_ROLES, DEFAULT_ATTRIBUTE, DEFAULT_GLOBAL, DEFAULT_LDAP, DEFAULT_MAIL, DEFAULT_PASSWORDS, DEFAULT_POSTGRES, DEFAULT_SCIM, DEFAULT_SERVER, DEFAULT_SESSIONS, DEFAULT_TLS } from './defaults';

/**
 * The published JSON Schema of the configuration file (`svc config-schema` prints it). Defaults are
 * taken from defaults.ts so that they live in one place; cross-references between sections are
 * checked afterwards in validate.ts, which a schema cannot express.
 */
const id = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' } as const;
const sessionType = { enum: ['INTERNAL', 'ANON', 'USER', 'SYSTEM'] } as const;
const operation = { enum: ['CREATE', 'READ', 'UPDATE', 'DELETE', 'SEARCH'] } as const;
const seconds = { type: 'integer', minimum: 1 } as const;
const count = { type: 'integer', minimum: 1 } as const;
const stringList = { type: 'array', items: { type: 'string' } } as const;

const globalProperties = Object.fromEntries(
  Object.entries(DEFAULT_GLOBAL).map(([key, value]) => {
    if (key === 'authz.denyStatus') return [key, { enum: [401, 403], default: value }];
    if (key === 'cookie.secure') return [key, { enum: ['auto', 'always', 'never'], default: value }];
    if (typeof value === 'number') return [key, { ...(key.startsWith('session.') || key === 'events.pruneInterval' || key.startsWith('lockout.window') || key.startsWith('lockout.duration') ? seconds : count), default: value }];
    return [key, { type: 'string', minLength: 1, default: value }];
  }),
);

const attrName = { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$' } as const;

const attribute = {
  type: 'object',
  additionalProperties: false,
  properties: {
    type: { enum: ['string', 'boolean', 'email'], default: DEFAULT_ATTRIBUTE.type },
    multivalued: { type: 'boolean', default: DEFAULT_ATTRIBUTE.multivalued },
    required: { type: 'boolean', default: DEFAULT_ATTRIBUTE.required },
    unique: { type: 'boolean', default: DEFAULT_ATTRIBUTE.unique },
    mutability: { enum: ['readWrite', 'admin', 'immutable', 'writeOnly'], default: DEFAULT_ATTRIBUTE.mutability },
    default: { anyOf: [{ type: 'string' }, stringList] },
    maxLength: { type: 'integer', minimum: 1, maximum: 65536, default: DEFAULT_ATTRIBUTE.maxLength },
  },
} as const;

export const configSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'urn:svc:config:v1',
  title: 'svc configuration',
  type: 'object',
  additionalProperties: false,
  required: ['contexts', 'authenticators', 'clients'],
  properties: {
    $schema: { type: 'string' },
    server: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        host: { type: 'string', minLength: 1, default: DEFAULT_SERVER.host },
        port: { type: 'integer', minimum: 0, maximum: 65535, default: DEFAULT_SERVER.port },
        contextRoot: { type: 'string', pattern: '^(/[A-Za-z0-9._-]+)+$', default: DEFAULT_SERVER.contextRoot },
        dataDir: { type: 'string', minLength: 1, default: DEFAULT_SERVER.dataDir },
        trustProxy: { ...stringList, default: [] },
        tls: {
          type: 'object',
          additionalProperties: false,
          // cert and key together (HTTPS); clientCA alone serves a TLS-terminating proxy's XFCC.
          dependencies: { cert: ['key'], key: ['cert'], crl: ['clientCA'] },
          properties: {
            cert: { type: 'string', minLength: 1 },
            key: { type: 'string', minLength: 1 },
            clientCA: { type: 'string', minLength: 1 },
            crl: { type: 'string', minLength: 1 },
            xfccPeers: { ...stringList, default: DEFAULT_TLS.xfccPeers },
          },
        },
        corsOrigins: { ...stringList, default: [] },
        allowedRedirectOrigins: { ...stringList, default: [] },
        timeouts: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            headers: { type: 'number', exclusiveMinimum: 0, maximum: 3600, default: DEFAULT_SERVER.timeouts.headers },
            request: { type: 'number', exclusiveMinimum: 0, maximum: 3600, default: DEFAULT_SERVER.timeouts.request },
            keepAlive: { type: 'number', exclusiveMinimum: 0, maximum: 3600, default: DEFAULT_SERVER.timeouts.keepAlive },
          },
        },
        maxConnections: { type: 'integer', minimum: 1, default: DEFAULT_SERVER.maxConnections },
      },
    },
    global: { type: 'object', additionalProperties: false, default: {}, properties: globalProperties },
    passwords: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        algorithm: { enum: ['argon2id', 'scrypt'], default: DEFAULT_PASSWORDS.algorithm },
        argon2: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            memoryCost: { type: 'integer', minimum: 19456, default: DEFAULT_PASSWORDS.argon2.memoryCost },
            timeCost: { type: 'integer', minimum: 2, default: DEFAULT_PASSWORDS.argon2.timeCost },
            parallelism: { type: 'integer', minimum: 1, default: DEFAULT_PASSWORDS.argon2.parallelism },
          },
        },
        scrypt: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            // Which (ln, r, p) together are allowed (OWASP's list) is checked in references.ts.
            ln: { type: 'integer', minimum: 13, maximum: 22, default: DEFAULT_PASSWORDS.scrypt.ln },
            r: { type: 'integer', minimum: 8, default: DEFAULT_PASSWORDS.scrypt.r },
            p: { type: 'integer', minimum: 1, default: DEFAULT_PASSWORDS.scrypt.p },
          },
        },
        maxCost: {
          description:
            'The most a stored hash may cost to verify, as factors of the configured setting of its algorithm: memory (argon2id m; scrypt 128·r·N bytes) and time (argon2id m·t; scrypt N·r·p). A hash above it is refused at import and never computed at a login.',
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            memoryFactor: { type: 'number', minimum: 1, default: DEFAULT_PASSWORDS.maxCost.memoryFactor },
            timeFactor: { type: 'number', minimum: 1, default: DEFAULT_PASSWORDS.maxCost.timeFactor },
          },
        },
        maxConcurrent: { type: 'integer', minimum: 1, default: DEFAULT_PASSWORDS.maxConcurrent },
        maxQueue: { type: 'integer', minimum: 0, default: DEFAULT_PASSWORDS.maxQueue },
      },
    },
    contexts: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'definition'],
        properties: {
          id,
          store: { enum: ['sqlite', 'postgres', 'memory', 'ldap'], default: 'sqlite' },
          definition: {
            type: 'object',
            additionalProperties: false,
            required: ['attributes'],
            properties: {
              attributes: {
                type: 'object',
                propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$', not: { enum: ['uniqueId'] } },
                additionalProperties: attribute,
              },
              authenid: { ...stringList, default: [] },
              password: { type: 'string' },
            },
          },
          searchAttributes: { ...stringList, default: ['uniqueId'] },
          registration: {
            type: 'object',
            additionalProperties: false,
            default: {},
            properties: { enabled: { type: 'boolean', default: false }, attributes: { ...stringList, default: [] }, verifyEmail: { type: 'boolean', default: false } },
          },
          forgottenPassword: {
            type: 'object',
            additionalProperties: false,
            default: {},
            properties: {
              enabled: { type: 'boolean', default: false },
              questionsAttribute: { type: 'string', default: 'passwordQuestions' },
              answersAttribute: { type: 'string', default: 'passwordAnswers' },
              methods: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: ['questions', 'email'] }, default: ['questions'] },
            },
          },
          adminRoles: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true, default: [...DEFAULT_ADMIN_ROLES] },
        },
      },
    },
    authenticators: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'kind', 'variant', 'sessionType'],
        properties: {
          id,
          kind: { enum: ['Anonymous', 'UserPass', 'Token'] },
          variant: { enum: ['anonymous', 'service', 'system', 'idpSession', 'httpHeader', 'clientPrincipal', 'clientCertificate'] },
          sessionType,
          context: { type: 'string' },
          options: { type: 'object', default: {} },
        },
      },
    },
    clients: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'authenticators', 'contexts'],
        properties: {
          id,
          secret: { anyOf: [{ type: 'string' }, { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } }] },
          authenticators: { ...stringList, minItems: 1 },
          defaultAuthenticator: { type: 'string' },
          contexts: { ...stringList, minItems: 1 },
          defaultContext: { type: 'string' },
          allowPrincipalAssertion: { type: 'boolean', default: false },
        },
      },
    },
    policies: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'effect', 'sessionTypes', 'operations', 'targets'],
        properties: {
          id,
          effect: { enum: ['allow', 'deny'] },
          sessionTypes: { type: 'array', minItems: 1, items: sessionType },
          clients: stringList,
          principalContexts: stringList,
          roles: stringList,
          minLevel: { enum: [1, 2, 3] },
          operations: { type: 'array', minItems: 1, items: operation },
          targets: { ...stringList, minItems: 1 },
        },
      },
    },
    reservedIds: { ...stringList, default: [] },
    system: {
      type: 'object',
      additionalProperties: false,
      required: ['userId', 'passwordHash'],
      properties: { userId: { type: 'string', minLength: 1 }, passwordHash: { type: 'string', pattern: '^\\$(argon2id|scrypt)\\$' } },
    },
    stores: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        postgres: {
          type: 'object',
          additionalProperties: false,
          required: ['url'],
          properties: {
            url: { type: 'string', pattern: '^postgres(ql)?://' },
            poolSize: { type: 'integer', minimum: 1, maximum: 1000, default: DEFAULT_POSTGRES.poolSize },
            statementTimeoutMs: { type: 'integer', minimum: 1, default: DEFAULT_POSTGRES.statementTimeoutMs },
            connectTimeoutMs: { type: 'integer', minimum: 1, default: DEFAULT_POSTGRES.connectTimeoutMs },
            migrate: { enum: ['auto', 'refuse'], default: DEFAULT_POSTGRES.migrate },
          },
        },
        ldap: {
          type: 'object',
          additionalProperties: false,
          required: ['url', 'bindDN', 'bindPassword', 'baseDN'],
          properties: {
            url: { type: 'string', pattern: '^ldaps?://' },
            bindDN: { type: 'string', minLength: 1 },
            bindPassword: { type: 'string', minLength: 1 },
            baseDN: { type: 'string', minLength: 1 },
            objectClasses: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9-]*$' }, default: DEFAULT_LDAP.objectClasses },
            idAttribute: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9-]*$', default: DEFAULT_LDAP.idAttribute },
            attributeMap: {
              type: 'object',
              additionalProperties: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9-]*$' },
              default: DEFAULT_LDAP.attributeMap,
            },
            startTLS: { type: 'boolean', default: DEFAULT_LDAP.startTLS },
            caFile: { type: 'string', minLength: 1 },
            poolSize: { type: 'integer', minimum: 1, maximum: 100, default: DEFAULT_LDAP.poolSize },
            connectTimeoutMs: { type: 'integer', minimum: 1, default: DEFAULT_LDAP.connectTimeoutMs },
            operationTimeoutMs: { type: 'integer', minimum: 1, default: DEFAULT_LDAP.operationTimeoutMs },
            maxFailures: { type: 'integer', minimum: 1, default: DEFAULT_LDAP.maxFailures },
          },
        },
      },
    },
    log: { ...logSchema, default: {} },
    mail: {
      type: 'object',
      additionalProperties: false,
      required: ['smtp', 'publicBase'],
      properties: {
        smtp: {
          type: 'object',
          additionalProperties: false,
          required: ['host', 'from'],
          properties: {
            host: { type: 'string', minLength: 1 },
            port: { type: 'integer', minimum: 1, maximum: 65535, default: DEFAULT_MAIL.smtp.port },
            secure: { type: 'boolean', default: DEFAULT_MAIL.smtp.secure },
            requireTLS: { type: 'boolean', default: DEFAULT_MAIL.smtp.requireTLS },
            ca: { type: 'string', minLength: 1 },
            user: { type: 'string', minLength: 1 },
            password: { type: 'string', minLength: 1 },
            from: { type: 'string', minLength: 3 },
          },
        },
        publicBase: { type: 'string', pattern: '^https?://[^/?#]+(/[^?#]*)?$' },
        linkOrigins: { type: 'array', items: { type: 'string', pattern: '^https?://[^/?#]+$' }, default: [] },
        queue: { enum: ['sqlite', 'postgres'], default: DEFAULT_MAIL.queue },
        retry: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            initialSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 3600, default: DEFAULT_MAIL.retry.initialSeconds },
            maxSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 86400, default: DEFAULT_MAIL.retry.maxSeconds },
          },
        },
      },
    },
    scim: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        clients: {
          type: 'array',
          default: [],
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'context', 'subject', 'tokenSha256'],
            properties: {
              id,
              context: id,
              subject: { type: 'string', minLength: 1, maxLength: 256 },
              tokenSha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
            },
          },
        },
        attributes: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: Object.fromEntries(Object.entries(DEFAULT_SCIM.attributes).map(([key, value]) => [key, { ...attrName, default: value }])),
        },
        maxResults: { type: 'integer', minimum: 1, maximum: 1000, default: DEFAULT_SCIM.maxResults },
      },
    },
    sessions: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        store: { enum: ['memory', 'redis'], default: DEFAULT_SESSIONS.store },
        redis: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            url: { type: 'string', pattern: '^rediss?://', default: DEFAULT_SESSIONS.redis.url },
            password: { type: 'string', minLength: 1 },
            prefix: { type: 'string', pattern: '^[\\x21-\\x7e]{1,64}$', default: DEFAULT_SESSIONS.redis.prefix },
            commandTimeoutMs: { type: 'integer', minimum: 1, default: DEFAULT_SESSIONS.redis.commandTimeoutMs },
          },
        },
      },
    },
  },
} as const;

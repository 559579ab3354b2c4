import { DEFAULT_REDIS_COMMAND_TIMEOUT_MS } from '../../../common/src/redis/command-timeout';
import { DEFAULT_CREDENTIAL_PARAMETERS } from '../../../common/src/wire/credential-parameters';
import { DEFAULT_MAX_COST } from '../passwords/hash-cost';
import type { GlobalConfig, LdapSettings, PasswordSettings, PostgresSettings, ServerSettings, TlsSettings } from './types';

/** Every default in one place. Durations are seconds. */
export const DEFAULT_SERVER: ServerSettings = {
  host: '127.0.0.1',
  port: 8080,
  contextRoot: '/svc',
  dataDir: './data',
  trustProxy: [],
  corsOrigins: [],
  allowedRedirectOrigins: [],
  // Above common load balancers' 60 s idle time, so that they never reuse a connection we closed.
  timeouts: { headers: 30, request: 30, keepAlive: 65 },
  // Well under the usual open-file limits (the gateway keeps up to 256 connections to each core).
  maxConnections: 4096,
};

export const DEFAULT_GLOBAL: GlobalConfig = {
  'auth.token.name.client': DEFAULT_CREDENTIAL_PARAMETERS.client,
  'auth.token.name.password': DEFAULT_CREDENTIAL_PARAMETERS.password,
  'auth.token.name.user': DEFAULT_CREDENTIAL_PARAMETERS.user,
  'auth.token.name.httpheader': 'svcid',
  'auth.token.name.clientcred': DEFAULT_CREDENTIAL_PARAMETERS.clientcred,
  'auth.token.name.token': DEFAULT_CREDENTIAL_PARAMETERS.token,
  'http.session.cookie.uniqueid': 'SVCSESSIONID',
  'server.cookiepath': '/',
  'server.defaultclient': 'anon',
  'session.idle': 30 * 60,
  'session.absolute': 12 * 60 * 60,
  'session.maxSessions': 100_000,
  'auth.maxSessionsPerPrincipal': 50,
  'cookie.secure': 'auto',
  'authz.denyStatus': 401,
  'lockout.window': 15 * 60,
  'lockout.duration': 15 * 60,
  'lockout.pairFailures': 5,
  'lockout.subjectFailures': 50,
  'lockout.addressFailures': 100,
  'lockout.answerFailures': 3,
  'registration.perAddress': 10,
  'registration.window': 60 * 60,
  'flow.startsPerAddress': 20,
  'flow.window': 15 * 60,
  'body.limit': 1024 * 1024,
  'search.maxQuantity': 1000,
  'search.defaultQuantity': 25,
  'events.retentionDays': 90,
  'events.maxPerSubject': 1000,
  'events.pruneInterval': 60 * 60,
};

/** OWASP's minimum argon2id setting (m=19 MiB, t=2, p=1), an OWASP-listed scrypt setting, and stored hashes up to 4× their cost. */
export const DEFAULT_PASSWORDS: PasswordSettings = {
  algorithm: 'argon2id',
  argon2: { memoryCost: 19456, timeCost: 2, parallelism: 1 },
  scrypt: { ln: 17, r: 8, p: 1 },
  // A stored hash may cost 4× the configured setting of its algorithm in memory and in time.
  maxCost: { ...DEFAULT_MAX_COST },
  maxConcurrent: 2,
  maxQueue: 64,
};

/** A context's `adminRoles` when the configuration names none (SPEC section 6). */
export const DEFAULT_ADMIN_ROLES: readonly string[] = ['admin'];

export const DEFAULT_ATTRIBUTE = {
  type: 'string',
  multivalued: false,
  required: false,
  unique: false,
  mutability: 'readWrite',
  maxLength: 1024,
} as const;

/** `stores.postgres` without its `url`: a pool of 10, statements cancelled after 5 s, migrations applied at start. */
export const DEFAULT_POSTGRES: Omit<PostgresSettings, 'url'> = {
  poolSize: 10,
  statementTimeoutMs: 5_000,
  connectTimeoutMs: 5_000,
  migrate: 'auto',
};

/**
 * `stores.ldap` without its connection and names: OpenLDAP's inetOrgPerson-like attributes, svc's own
 * (ldap/svc.ldif) for what a directory lacks, a pool of 5, 5 s timeouts, svc's own lock after 3 failures.
 */
export const DEFAULT_LDAP: Omit<LdapSettings, 'url' | 'bindDN' | 'bindPassword' | 'baseDN'> = {
  objectClasses: ['inetOrgPerson', 'svcSubject'],
  idAttribute: 'uid',
  attributeMap: {
    familyName: 'sn',
    roles: 'svcRole',
    disabled: 'svcDisabled',
    passwordQuestions: 'svcPasswordQuestion',
    passwordAnswers: 'svcPasswordAnswer',
    userName: 'svcUserName',
    externalId: 'svcExternalId',
  },
  startTLS: false,
  poolSize: 5,
  connectTimeoutMs: 5_000,
  operationTimeoutMs: 5_000,
  maxFailures: 3,
};

/** `sessions`: in memory; with `store: "redis"`, the local Redis and the prefix `svc:`. */
export const DEFAULT_SESSIONS = {
  store: 'memory',
  redis: { url: 'redis://127.0.0.1:6379', prefix: 'svc:', commandTimeoutMs: DEFAULT_REDIS_COMMAND_TIMEOUT_MS },
} as const;

/** `server.tls` when the section is given: no proxy's X-Forwarded-Client-Cert counts until listed. */
export const DEFAULT_TLS: Pick<TlsSettings, 'xfccPeers'> = { xfccPeers: [] };

/** `mail` without its server and base: port 587 with STARTTLS required, the queue in SQLite, retries from 5 s doubling up to 15 min. */
export const DEFAULT_MAIL = {
  smtp: { port: 587, secure: false, requireTLS: true },
  queue: 'sqlite',
  retry: { initialSeconds: 5, maxSeconds: 15 * 60 },
} as const;

/** SPEC 14: the role of the SCIM clients' service subjects, which the shipped provisioner-manages-own-context allows. */
export const PROVISIONER_ROLES: readonly string[] = ['provisioner'];

/** `scim` (SPEC 14): no clients; the demo's attribute names; lists of at most 200. */
export const DEFAULT_SCIM = {
  attributes: {
    userName: 'userName',
    externalId: 'externalId',
    'name.givenName': 'givenName',
    'name.familyName': 'familyName',
    displayName: 'displayName',
    emails: 'mail',
    active: 'disabled',
  },
  maxResults: 200,
} as const;

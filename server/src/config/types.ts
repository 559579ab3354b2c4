/** The shape of a validated configuration (after defaults and `${ENV}` substitution). */
import type { LogSettings } from '../../../common/src/request-log-settings';
import type { Operation } from '../../../common/src/wire/operations';
import type { SessionType } from '../../../common/src/wire/session-view';

export type { Operation, SessionType };

export type Mutability = 'readWrite' | 'admin' | 'immutable' | 'writeOnly';
export type AttributeType = 'string' | 'boolean' | 'email';

export interface AttributeDefinition {
  type: AttributeType;
  multivalued: boolean;
  required: boolean;
  unique: boolean;
  mutability: Mutability;
  default?: string | string[];
  maxLength: number;
}

export type SubjectStoreKind = 'sqlite' | 'postgres' | 'memory' | 'ldap';

export interface ContextConfig {
  id: string;
  store: SubjectStoreKind;
  definition: {
    attributes: Record<string, AttributeDefinition>;
    /** `definition.authenid`: attributes that may serve as the login name besides the uniqueId. */
    authenid: string[];
    /** `definition.password`: the attribute holding the PHC hash. */
    password?: string;
  };
  searchAttributes: string[];
  /** `verifyEmail` (SPEC 16): a registrant's address is verified by a mailed link before the subject may log in. */
  registration: { enabled: boolean; attributes: string[]; verifyEmail: boolean };
  /** `methods` (SPEC 16): the security questions, a mailed link, or both. */
  forgottenPassword: { enabled: boolean; questionsAttribute: string; answersAttribute: string; methods: ForgottenPasswordMethod[] };
  /**
   * `adminRoles` (SPEC section 6): holders of any of these `roles` values are the context's admins,
   * for attribute mutability and the shipped default policies. Role names live only in configuration.
   */
  adminRoles: string[];
}

export type ForgottenPasswordMethod = 'questions' | 'email';

export type AuthenticatorKind = 'Anonymous' | 'UserPass' | 'Token';
export type AuthenticatorVariant = 'anonymous' | 'service' | 'system' | 'idpSession' | 'httpHeader' | 'clientPrincipal' | 'clientCertificate';

export interface AuthenticatorConfig {
  id: string;
  kind: AuthenticatorKind;
  variant: AuthenticatorVariant;
  sessionType: SessionType;
  context?: string;
  options: Record<string, unknown>;
}

export interface ClientConfig {
  id: string;
  /** One secret, or two during rotation (either opens, the first seals). */
  secret?: string[];
  authenticators: string[];
  defaultAuthenticator?: string;
  contexts: string[];
  defaultContext: string;
  allowPrincipalAssertion: boolean;
}

export interface PolicyConfig {
  id: string;
  effect: 'allow' | 'deny';
  sessionTypes: SessionType[];
  clients?: string[];
  /** The policy applies only to principals of these contexts (the shipped defaults' per-context admins). */
  principalContexts?: string[];
  roles?: string[];
  /**
   * SPEC 15: the allow applies only to sessions of at least this level, and only to principals with
   * a confirmed second factor (a principal without one is unaffected).
   */
  minLevel?: 1 | 2 | 3;
  operations: Operation[];
  targets: string[];
}

/**
 * The file's `global` section as written: the original system's dotted property names (SPEC keeps
 * them). Only the loader reads it: settings.ts maps it once to SvcConfig's typed `settings`.
 */
export interface GlobalConfig {
  'auth.token.name.client': string;
  'auth.token.name.password': string;
  'auth.token.name.user': string;
  'auth.token.name.httpheader': string;
  'auth.token.name.clientcred': string;
  'auth.token.name.token': string;
  'http.session.cookie.uniqueid': string;
  'server.cookiepath': string;
  'server.defaultclient': string;
  /** Seconds. */
  'session.idle': number;
  'session.absolute': number;
  'session.maxSessions': number;
  /** USER sessions one principal may hold; a new login past it ends that principal's oldest (SPEC section 4). */
  'auth.maxSessionsPerPrincipal': number;
  'cookie.secure': 'auto' | 'always' | 'never';
  'authz.denyStatus': 401 | 403;
  'lockout.window': number;
  'lockout.duration': number;
  'lockout.pairFailures': number;
  'lockout.subjectFailures': number;
  'lockout.addressFailures': number;
  'lockout.answerFailures': number;
  /** Registrations accepted from one address per `registration.window` seconds. */
  'registration.perAddress': number;
  'registration.window': number;
  /** Forgotten-password flows a visitor's address may start per `flow.window` seconds (SPEC section 4, "Memory"). */
  'flow.startsPerAddress': number;
  'flow.window': number;
  'body.limit': number;
  'search.maxQuantity': number;
  'search.defaultQuantity': number;
  /** Subject events (SPEC 10.4) are kept this many days, and at most `events.maxPerSubject` per subject. */
  'events.retentionDays': number;
  'events.maxPerSubject': number;
  /** Seconds between two runs of the retention job. */
  'events.pruneInterval': number;
}

/** The names of the request parameters (and the header) that carry credentials: `auth.token.name.*`. */
export interface CredentialNames {
  /** The parameter that names the client. */
  client: string;
  password: string;
  user: string;
  /** The header the `httpHeader` authenticator reads. */
  httpHeader: string;
  /** The sealed client credential. */
  clientcred: string;
  /** An identity provider's token. */
  token: string;
}

/** The `lockout.*` settings (SPEC section 2). */
export interface LockoutSettings {
  /** Seconds a failure counts for. */
  windowSeconds: number;
  /** Seconds a lock lasts. */
  durationSeconds: number;
  /** Failures that lock one (subject, address) pair. */
  pairFailures: number;
  /** Failures from all addresses that lock the subject. */
  subjectFailures: number;
  /** Failures from one address after which it gets 429. */
  addressFailures: number;
  /** Wrong forgotten-password answers per subject per window. */
  answerFailures: number;
}

/**
 * The `global` section, typed and grouped (settings.ts builds it from GlobalConfig when the
 * configuration is built; the code reads only this). Durations are in seconds, sizes in bytes.
 */
export interface Settings {
  credentialNames: CredentialNames;
  /** `http.session.cookie.uniqueid`, `server.cookiepath`, `cookie.secure` (over TLS only when `auto`). */
  sessionCookie: { name: string; path: string; secure: 'auto' | 'always' | 'never' };
  /** `server.defaultclient`: the client whose authenticators make a session for a request without one. */
  defaultClient: string;
  session: {
    /** Seconds unused after which a session ends. */
    idleSeconds: number;
    /** Seconds after its login at which a session ends. */
    absoluteSeconds: number;
    /** USER and SYSTEM sessions held at most; a login past it is refused (503). */
    maxSessions: number;
    /** USER sessions one principal may hold; a new login past it ends that principal's oldest (SPEC section 4). */
    maxSessionsPerPrincipal: number;
  };
  /** `authz.denyStatus`: the status of a DENY. */
  denyStatus: 401 | 403;
  lockout: LockoutSettings;
  /** Registrations accepted from one address per `windowSeconds`, failed ones included. */
  registrationLimit: { perAddress: number; windowSeconds: number };
  /** Forgotten-password flows a visitor's address may start per `windowSeconds` (SPEC section 4, "Memory"). */
  flowLimit: { startsPerAddress: number; windowSeconds: number };
  /** Bytes a request body may have at most (413 past it). */
  bodyLimitBytes: number;
  /** Results per SEARCH page: at most, and when `quantity` is not given. */
  search: { maxQuantity: number; defaultQuantity: number };
  /** Subject events' retention (SPEC 10.4): days, the newest kept per subject, seconds between two prunings. */
  events: { retentionDays: number; maxPerSubject: number; pruneIntervalSeconds: number };
}

/**
 * `server.tls` (SPEC sections 1 and 13). `cert` and `key` make the core serve HTTPS; `clientCA` (a PEM
 * bundle) makes it ask for client certificates and enables the clientCertificate authenticator;
 * `crl` (PEM, one or more lists) adds revocation, reloaded on SIGHUP; `xfccPeers` (CIDRs, apart from
 * trustProxy) are the TLS-terminating proxies whose X-Forwarded-Client-Cert counts.
 */
export interface TlsSettings {
  cert?: string;
  key?: string;
  clientCA?: string;
  crl?: string;
  xfccPeers: string[];
}

export interface ServerSettings {
  host: string;
  port: number;
  contextRoot: string;
  dataDir: string;
  trustProxy: string[];
  tls?: TlsSettings;
  corsOrigins: string[];
  /** Origins besides our own that `goto` may point at. */
  allowedRedirectOrigins: string[];
  /**
   * Seconds. `headers`: the request line and headers must have arrived (slowloris); `request`: the
   * whole request, body included; `keepAlive`: an idle kept-alive connection is closed.
   */
  timeouts: { headers: number; request: number; keepAlive: number };
  /** Open connections at most; one more is closed as soon as it is accepted (a flood is bounded). */
  maxConnections: number;
}

export interface PasswordSettings {
  algorithm: 'argon2id' | 'scrypt';
  argon2: { memoryCost: number; timeCost: number; parallelism: number };
  scrypt: { ln: number; r: number; p: number };
  /**
   * The most a stored hash may cost to verify, as factors of the configured setting of its algorithm
   * (memory; time): a hash above it is refused at import and never computed at a login (SPEC 2).
   */
  maxCost: { memoryFactor: number; timeFactor: number };
  maxConcurrent: number;
  maxQueue: number;
}

/** `stores.postgres` (SPEC section 12): the shared subject store of several instances. */
export interface PostgresSettings {
  /** `postgres://user:password@host:port/database`; `?options=-c search_path=NAME` selects a schema. */
  url: string;
  poolSize: number;
  /** Milliseconds a statement may run before the database cancels it. */
  statementTimeoutMs: number;
  /** Milliseconds to wait for a connection (a new one, or a free one of the pool). */
  connectTimeoutMs: number;
  /** `auto`: apply pending schema migrations at start; `refuse`: stop and ask for `svc migrate`. */
  migrate: 'auto' | 'refuse';
}

/**
 * `stores.ldap` (SPEC section 13): subjects in a directory. A context's subjects are the entries one
 * level under `ou=<context id>,<baseDN>`, named `<idAttribute>=<uniqueId>`.
 */
export interface LdapSettings {
  /** `ldap://host:port` or `ldaps://host:port`. */
  url: string;
  /** The service account svc binds as for everything but password checks. */
  bindDN: string;
  bindPassword: string;
  baseDN: string;
  /** Object classes of a new entry: a structural one and svc's auxiliary `svcSubject` (ldap/svc.ldif). */
  objectClasses: string[];
  /** The directory attribute that names an entry and holds its uniqueId (`uid`; `sAMAccountName` on Active Directory). */
  idAttribute: string;
  /** svc attribute name → directory attribute (an attribute not listed keeps its own name). */
  attributeMap: Record<string, string>;
  /** Upgrade `ldap://` connections with StartTLS before binding. */
  startTLS: boolean;
  /** PEM file of the CAs that may sign the directory's certificate (the system's when absent). */
  caFile?: string;
  poolSize: number;
  /** Milliseconds to open a connection, and for one operation to answer. */
  connectTimeoutMs: number;
  operationTimeoutMs: number;
  /**
   * Failed logins per subject in 15 minutes before svc locks it itself: below the directory's
   * `pwdMaxFailure` (refused at start otherwise), so that svc cannot be used to lock directory accounts.
   */
  maxFailures: number;
}

/** `sessions.redis` (SPEC section 12): where shared sessions, nonces and counters live. */
export interface RedisSettings {
  /** `redis://host:port/db` or `rediss://` (TLS); never with credentials in it. */
  url: string;
  /** `AUTH` password; required unless the URL is a loopback address. */
  password?: string;
  /** Prefix of every key: instances sharing a prefix share everything under it. */
  prefix: string;
  /** A command unanswered this long fails, and its request is refused (503) rather than held. */
  commandTimeoutMs: number;
}

/** `sessions`: `memory` (one process) or `redis` (shared by every instance on the same Redis and prefix). */
export interface SessionSettings {
  store: 'memory' | 'redis';
  redis: RedisSettings;
}

/**
 * `mail` (SPEC 16): how svc sends mail (nodemailer over SMTP), where its links point, and where the
 * queue of messages to send is kept.
 */
export interface MailSettings {
  smtp: {
    host: string;
    port: number;
    /** TLS from the first byte (port 465); otherwise STARTTLS, required unless `requireTLS` is false. */
    secure: boolean;
    /** Refuse to send without STARTTLS (when not `secure`). */
    requireTLS: boolean;
    /** PEM file of the CAs that may sign the SMTP server's certificate (the system's when absent). */
    ca?: string;
    user?: string;
    password?: string;
    /** The From address of every message. */
    from: string;
  };
  /** The origin and context root links are built from: `https://id.example.com/svc`. */
  publicBase: string;
  /** Origins a request's `returnTo` may name (the portal's); links then point there. */
  linkOrigins: string[];
  /** Where the queue and the tokens' hashes live: `mail.sqlite` in the data directory, or `stores.postgres`. */
  queue: 'sqlite' | 'postgres';
  /** Back-off of a message whose sending failed: the first wait and the longest, in seconds. */
  retry: { initialSeconds: number; maxSeconds: number };
}

/** A SCIM provisioning client (SPEC 14): its bearer token opens a USER session of `subject` in `context`. */
export interface ScimClientConfig {
  id: string;
  context: string;
  subject: string;
  /** SHA-256 of the token, lowercase hex (`svc gen-secret --scim` prints it). */
  tokenSha256: string;
}

/**
 * Which svc attribute each SCIM User attribute is kept in (SPEC 14). `active` names a boolean
 * attribute holding its negation (`disabled`); `emails` keeps the primary (or first) address. A name
 * the context does not define is not mapped there.
 */
export interface ScimAttributeMap {
  userName: string;
  externalId: string;
  'name.givenName': string;
  'name.familyName': string;
  displayName: string;
  emails: string;
  active: string;
}

export interface ScimSettings {
  clients: ScimClientConfig[];
  attributes: ScimAttributeMap;
  /** `count` of a list at most, and its default. */
  maxResults: number;
}

export interface SvcConfig {
  server: ServerSettings;
  /** The file's `global` section, typed (settings.ts). */
  settings: Settings;
  passwords: PasswordSettings;
  contexts: ContextConfig[];
  authenticators: AuthenticatorConfig[];
  clients: ClientConfig[];
  policies: PolicyConfig[];
  reservedIds: string[];
  system?: { userId: string; passwordHash: string };
  stores: { postgres?: PostgresSettings; ldap?: LdapSettings };
  sessions: SessionSettings;
  /** SCIM 2.0 provisioning (SPEC 14). */
  scim: ScimSettings;
  /** `log.requests`: which requests get a log line (common/src/request-log-settings.ts). */
  log: LogSettings;
  /** SPEC 16: absent, svc sends no mail (and no context may need it). */
  mail?: MailSettings;
}

/** The validated document before settings.ts maps its `global` section: what the file holds. */
export type ConfigDocument = Omit<SvcConfig, 'settings'> & { global: GlobalConfig };

import { SubjectEventLog } from './subjects/event-log';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Audit, NO_PARTIES } from './audit';
import type { AttemptLimiter, AttemptLimits } from './flows/attempt-limiter';
import { MemoryAttemptLimiter } from './flows/memory-attempt-limiter';
import { readOrCreateKey } from './flows/decoy-questions';
import { MemoryResetMarkers } from './flows/memory-reset-markers';
import type { ResetMarkers } from './flows/reset-markers';
import { createAuthenticators } from './authenticators/registry';
import type { Authenticator } from './authenticators/authenticator';
import type { ClientConfig, ContextConfig, SvcConfig } from './config/types';
import { ClientCertificates } from './certificates/client-certificates';
import { ConfigError } from './config/load';
import { TrustedPeers } from './authenticators/trusted-peers';
import { createLogger, type Logger } from '../../common/src/log';
import { forwardedForKey } from '../../common/src/assertion/forwarded-for';
import { coreLockoutLimits, type LockoutStore } from './login/lockout-store';
import { MemoryLockoutStore } from './login/memory-lockout-store';
import { Metrics } from './metrics';
import { PasswordHasher } from './passwords/password-hasher';
import { PolicyDecisionPoint } from './policy/policy-decision-point';
import { createSessionStore } from './sessions/stores';
import { SessionManager } from './sessions/session-manager';
import type { Session } from './sessions/session';
import type { SessionStore } from './sessions/session-store';
import type { ChangeFeed } from './sessions/change-feed';
import type { NonceStore } from '../../common/src/nonce-store';
import { principalName } from '../../common/src/principal-name';
import type { SubjectStore } from './subjects/store';
import { createSubjectStore } from './subjects/stores';
import { fold, valuesOf } from './subjects/subject';
import { SubjectService } from './subjects/subject-service';
import { SubjectOperations } from './subjects/subject-operations';
import { Registrations } from './flows/registration';
import { ForgottenPassword } from './flows/forgotten-password';
import { Accounts } from './login/account';
import { LoginService } from './login/login-service';
import { Decisions } from './policy/decisions';
import { FactorStore } from './otp/factor-store';
import { ScimGroups } from './scim/groups';
import { SecondFactors, WRONG_CODE_LIMITS } from './otp/second-factors';
import { MemoryUsedSteps } from './otp/used-steps';
import { MailDelivery } from './mail/delivery';
import { EmailFlows, MAILS_PER_SUBJECT } from './mail/email-flows';
import type { MailStore } from './mail/mail-store';
import { createMailStore } from './mail/mail-stores';

export interface CoreOptions {
  logger?: Logger;
  /** Injectable clock (epoch ms) for sessions, lockout and client validation. */
  now?: () => number;
  sessionStore?: SessionStore;
  /** Lower hash costs for tests; production takes `config.passwords`. */
  hasher?: PasswordHasher;
}

const ROLES_TTL_MS = 5_000;
const MAX_CACHED_ROLES = 10_000;

/** The state derived from one configuration; replaced as a whole on reload. */
interface Derived {
  config: SvcConfig;
  pdp: PolicyDecisionPoint;
  clients: ReadonlyMap<string, ClientConfig>;
  authenticators: ReadonlyMap<string, Authenticator>;
  reserved: ReadonlySet<string>;
  /** The CAs and CRLs of `server.tls` (read from their files with the configuration), when client certificates are on. */
  certificates?: ClientCertificates;
  /** `server.tls.xfccPeers`: whose X-Forwarded-Client-Cert counts. */
  xfccPeers: TrustedPeers;
  /** The X-Svc-Forwarded-For keys (one per secret) of each client with `allowPrincipalAssertion`. */
  forwardedForKeys: ReadonlyMap<string, readonly Buffer[]>;
}

/**
 * The core server's domain, free of HTTP: configuration, stores, subjects, sessions, the policy
 * decision point, authenticators, audit and metrics. The HTTP layer (http/app.ts) calls into it.
 */
export class Core {
  readonly log: Logger;
  readonly metrics = new Metrics();
  readonly audit: Audit;
  readonly hasher: PasswordHasher;
  readonly sessions: SessionManager;
  private readonly sessionStore: SessionStore;
  /** The session store's replay cache: clientcred nonces are shared wherever the store is shared. */
  readonly nonces: NonceStore;
  /** Failed-login counters, kept where the sessions are (shared by instances sharing a Redis store). */
  readonly lockout: LockoutStore;
  readonly subjects: SubjectService;
  readonly now: () => number;
  /** Registrations, with their attempts per address (SPEC section 7). */
  readonly registrations: Registrations;
  /** Every authorization decision, of every transport. */
  readonly decisions: Decisions;
  /** The subject operations after authorization, for every transport. */
  readonly subjectOperations: SubjectOperations;
  /** Own password changes and lifted locks. */
  readonly accounts: Accounts;
  readonly logins: LoginService;
  readonly forgottenPassword: ForgottenPassword;
  /** Second factors (SPEC 15): enrollment, removal, a login's code. */
  readonly secondFactors: SecondFactors;
  /** SPEC 16: recovery by link, verified registration, address changes (over the mail queue). */
  readonly email: EmailFlows;
  /** The mail queue's sender: started with the core when `mail` is configured. */
  readonly mailDelivery: MailDelivery;
  /** `mail.queue`'s store, opened at first use. */
  private mailStore?: MailStore;
  /** `otp.sqlite` in the data directory, opened at first use. */
  private factorStore?: FactorStore;
  /** SCIM's groups (SPEC 14): a context's roles as groups, kept beside its subjects (SubjectStore.groups). */
  readonly scimGroups: ScimGroups;
  private otpKey?: Buffer;
  private readonly contexts = new Map<string, { config: ContextConfig; store: SubjectStore }>();
  /** The audit events about subjects, kept in their stores, and their retention job (SPEC 10.4). */
  readonly subjectEvents: SubjectEventLog;
  private readonly stores = new Map<string, SubjectStore>();
  private derived!: Derived;
  private readonly roles = new Map<string, { roles: readonly string[]; at: number }>();
  /** Bumped by every invalidation, so that a read that raced with one does not cache what it read. */
  private rolesGeneration = 0;
  /** The decoy questions' key from a shared session store, once open. */
  private sharedDecoyKey?: Buffer;
  private fileDecoyKey?: Buffer;
  /** Subject writes heard from every core sharing the session store (Redis pub/sub), once open. */
  private changes?: ChangeFeed;

  constructor(config: SvcConfig, options: CoreOptions = {}) {
    this.log = options.logger ?? createLogger();
    this.now = options.now ?? Date.now;
    this.audit = new Audit(this.log, this.metrics);
    this.hasher = options.hasher ?? new PasswordHasher(config.passwords);
    const store: SessionStore = options.sessionStore ?? createSessionStore(config, this.now);
    this.nonces = store;
    this.sessionStore = store;
    const limits = () => coreLockoutLimits(this.config);
    this.lockout = store.lockoutStore?.(limits, this.now) ?? new MemoryLockoutStore(limits, this.now);
    this.sessions = new SessionManager({
      store,
      idleSeconds: config.settings.session.idleSeconds,
      absoluteSeconds: config.settings.session.absoluteSeconds,
      now: this.now,
      maxSessionsPerPrincipal: () => this.config.settings.session.maxSessionsPerPrincipal,
    });
    this.subjects = new SubjectService(this.contexts, this.hasher, () => this.derived.reserved);
    this.subjectEvents = new SubjectEventLog({
      storeOf: (contextId) => this.contexts.get(contextId)?.store,
      stores: () => [...this.stores.values()],
      config: () => this.config,
      now: this.now,
      log: this.log,
    });
    this.audit.onRecord((record) => this.subjectEvents.record(record));
    const current = () => this.derived.config;
    const rolesOf = (session: Session) => this.rolesOf(session);
    this.registrations = new Registrations({
      perAddress: this.attemptLimiter('registrations', () => ({ limit: this.config.settings.registrationLimit.perAddress, window: this.config.settings.registrationLimit.windowSeconds })),
      subjects: this.subjects,
      audit: this.audit,
      email: () => this.email,
    });
    this.decisions = new Decisions({
      pdp: () => this.derived.pdp,
      config: current,
      rolesOf,
      exists: (contextId, subjectId) => this.subjects.context(contextId).store.exists(contextId, subjectId),
      hasFactor: (session) => session.principal !== null && this.secondFactors.has(session.principal),
      metrics: this.metrics,
      audit: this.audit,
    });
    this.subjectOperations = new SubjectOperations({
      subjects: this.subjects,
      registrations: this.registrations,
      audit: this.audit,
      rolesOf,
      config: current,
      hasFactor: (principal) => this.secondFactors.has(principal),
    });
    // SPEC 15: wrong second-factor codes per subject, counted where the sessions are; a lifted lock clears them.
    const wrongCodes = this.attemptLimiter('otp-wrong', () => WRONG_CODE_LIMITS);
    this.accounts = new Accounts({
      subjects: this.subjects,
      lockout: this.lockout,
      wrongCodes,
      hasher: this.hasher,
      audit: this.audit,
      endSubjectSessions: (contextId, uniqueId, reason, except) => this.endSubjectSessions(contextId, uniqueId, reason, except),
    });
    const dataFile = (name: string) => join(this.config.server.dataDir, name);
    this.secondFactors = new SecondFactors({
      store: () => (this.factorStore ??= openFactorStore(dataFile('otp.sqlite'))),
      // Like decoy.key: made once, atomically, in the data directory (every core of a cluster needs the same file).
      key: () => (this.otpKey ??= readOrCreateKey(dataFile('otp.key'))),
      usedSteps: store.usedSteps?.() ?? new MemoryUsedSteps(this.now),
      wrongCodes,
      accounts: this.accounts,
      audit: this.audit,
      now: this.now,
      denyStatus: () => this.config.settings.denyStatus,
    });
    this.scimGroups = new ScimGroups({
      subjects: this.subjects,
      subjectOperations: this.subjectOperations,
      decisions: this.decisions,
    });
    this.subjects.onChange(async (contextId, uniqueId, change) => {
      this.forgetRoles(contextId, uniqueId);
      // The other cores drop theirs at once; if Redis cannot be told, their cache's bound still holds.
      await this.changes?.publish(contextId, uniqueId).catch((error: unknown) => this.log.warn({ event: 'change_feed', outcome: 'failure', err: String(error) }, 'could not publish a subject change'));
      if (change !== 'updated') await this.endSubjectSessions(contextId, uniqueId, change);
      // A deleted subject's second factor goes with it: a subject made later under the same id starts without one.
      if (change === 'deleted') this.secondFactors.forget({ contextId, uniqueId });
    });
    this.apply(config);
    // Last: they read the configuration and the stores above as they are built.
    this.logins = new LoginService(this);
    this.forgottenPassword = new ForgottenPassword(this);
    this.mailDelivery = new MailDelivery({
      store: () => this.mail(),
      settings: () => this.config.mail,
      compose: (mail) => this.email.compose(mail),
      audit: this.audit,
      log: this.log,
      now: this.now,
    });
    this.email = new EmailFlows({
      config: current,
      store: () => this.mail(),
      delivery: () => this.mailDelivery,
      subjects: this.subjects,
      accounts: this.accounts,
      perSubject: this.attemptLimiter('mails', () => MAILS_PER_SUBJECT),
      starts: this.forgottenPassword.starts,
      audit: this.audit,
      now: this.now,
      endSubjectSessions: (contextId, uniqueId, reason) => this.endSubjectSessions(contextId, uniqueId, reason),
    });
    this.subjects.onChange(async (contextId, uniqueId, change) => {
      if (change === 'deleted' && this.mailStore) await this.mailStore.clearUnverified(contextId, uniqueId).catch(() => false);
    });
  }

  /** The mail queue's store (`mail.queue`), opened at first use. */
  private mail(): MailStore {
    return (this.mailStore ??= createMailStore(this.config, this.log));
  }

  /** Attempt limits kept where the sessions are: shared by every core sharing a Redis session store. */
  attemptLimiter(name: string, limits: () => AttemptLimits): AttemptLimiter {
    return this.sessionStore.attemptLimiter?.(name, limits, this.now) ?? new MemoryAttemptLimiter(limits, this.now);
  }

  /**
   * The key of the forgotten-password flow's decoy questions: shared in Redis beside the sessions
   * when they are there, else `decoy.key` in the data directory (made once, atomically).
   */
  decoyKey(): Buffer {
    return this.sharedDecoyKey ?? (this.fileDecoyKey ??= readOrCreateKey(join(this.config.server.dataDir, 'decoy.key')));
  }

  /** Reset markers kept where the sessions are, like the attempt limits. */
  resetMarkers(): ResetMarkers {
    return this.sessionStore.resetMarkers?.(this.now) ?? new MemoryResetMarkers(this.now);
  }

  get config(): SvcConfig {
    return this.derived.config;
  }

  get pdp(): PolicyDecisionPoint {
    return this.derived.pdp;
  }

  client(id: string): ClientConfig | undefined {
    return this.derived.clients.get(id);
  }

  authenticator(id: string): Authenticator | undefined {
    return this.derived.authenticators.get(id);
  }

  /** Client certificate trust (SPEC section 13), undefined when `server.tls.clientCA` is not set. */
  get clientCertificates(): ClientCertificates | undefined {
    return this.derived.certificates;
  }

  get xfccPeers(): TrustedPeers {
    return this.derived.xfccPeers;
  }

  /**
   * The keys that verify a client's X-Svc-Forwarded-For (SPEC section 9), or undefined when the
   * client may not vouch for a visitor's address (unknown, no secret, no `allowPrincipalAssertion`).
   */
  forwardedForKeys(clientId: string): readonly Buffer[] | undefined {
    return this.derived.forwardedForKeys.get(clientId);
  }

  /** Swaps in a new configuration atomically; stores of contexts that remain are kept. */
  apply(config: SvcConfig): void {
    // Files first: a CA bundle or CRL that does not load refuses the whole configuration.
    const certificates = loadCertificates(config);
    const problems = [...this.stores.values()].flatMap((store) => store.reloadProblems?.(config) ?? []);
    if (problems.length > 0) throw new ConfigError(problems);
    for (const context of config.contexts) {
      this.contexts.set(context.id, { config: context, store: this.storeFor(config, context) });
    }
    for (const id of [...this.contexts.keys()]) if (!config.contexts.some((c) => c.id === id)) this.contexts.delete(id);
    const reserved = new Set([...config.reservedIds, ...(config.system ? [config.system.userId] : [])].map(fold));
    this.derived = {
      config,
      pdp: PolicyDecisionPoint.fromConfig(config),
      clients: new Map(config.clients.map((c) => [c.id, c])),
      authenticators: createAuthenticators(config.authenticators, {
        subjects: this.subjects,
        hasher: this.hasher,
        audit: this.audit,
        config: () => this.derived.config,
        now: this.now,
      }),
      reserved,
      certificates,
      xfccPeers: new TrustedPeers(config.server.tls?.xfccPeers ?? [], 'server.tls.xfccPeers'),
      // Derived with each configuration, so a reload's new secret verifies at once and a removed one no longer does.
      forwardedForKeys: new Map(config.clients.filter((c) => c.allowPrincipalAssertion && c.secret?.length).map((c) => [c.id, c.secret!.map((secret) => forwardedForKey(secret))])),
    };
  }

  private storeFor(config: SvcConfig, context: ContextConfig): SubjectStore {
    let store = this.stores.get(context.store);
    if (!store) {
      store = createSubjectStore(context.store, config, { log: this.log });
      this.stores.set(context.store, store);
    }
    return store;
  }

  /** Prepares every store before the core serves (PostgreSQL checks or migrates its schema); throws what stops the start. */
  async open(): Promise<void> {
    await this.sessionStore.open?.();
    await Promise.all([...this.stores.values()].map((store) => store.open?.()));
    this.subjectEvents.start();
    if (this.config.mail) {
      await this.mail().open();
      this.mailDelivery.start();
      this.email.start();
    }
    // Cores sharing sessions share the key of stateless cookies too: a visitor's flow moves freely.
    await this.sessionStore.statelessKey?.((key) => this.sessions.useSigningKey(key));
    // Likewise the decoy questions' key: an unknown name gets the same questions from every core.
    await this.sessionStore.decoyKey?.((key) => (this.sharedDecoyKey = key));
    const feed = this.sessionStore.changeFeed?.(this.log);
    if (feed) {
      this.changes = feed;
      await feed.subscribe({
        changed: (contextId, uniqueId) => this.forgetRoles(contextId, uniqueId),
        // Writes may have gone unheard while unsubscribed: nothing cached can be trusted.
        resubscribed: () => {
          this.rolesGeneration++;
          this.roles.clear();
        },
      });
    }
  }

  /**
   * Revokes a subject's sessions (SPEC section 4, "Lifetimes": disabled, deleted, password changed or
   * reset), except the caller's own when it changed its own password. They end in the session store,
   * so on every core sharing it at once, and their ids answer `session_revoked` until they would have
   * expired.
   */
  async endSubjectSessions(contextId: string, uniqueId: string, reason: string, exceptCookieValue?: string): Promise<void> {
    const ended = await this.sessions.endForPrincipal(contextId, uniqueId, exceptCookieValue);
    // The subject's write ended them (any core's, through the change feed): no request of this core did.
    if (ended) this.audit.record({ ...NO_PARTIES, event: 'session_end', outcome: 'success', reason, principal: principalName({ contextId, uniqueId }), sessions: ended });
  }

  private forgetRoles(contextId: string, uniqueId: string): void {
    this.rolesGeneration++;
    this.roles.delete(principalName({ contextId, uniqueId }));
  }

  /**
   * The `roles` of a session's principal. Every authorized request needs them, so they are cached
   * per subject; a write through the subject service drops the entry at once, on this core and (with
   * a change feed) on every core sharing the session store, and entries live at most ROLES_TTL_MS so
   * that a write whose news was lost is seen soon too.
   */
  async rolesOf(session: Session): Promise<readonly string[]> {
    if (!session.principal) return [];
    const key = principalName(session.principal);
    const cached = this.roles.get(key);
    if (cached && this.now() - cached.at < ROLES_TTL_MS) return cached.roles;
    const entry = this.contexts.get(session.principal.contextId);
    const generation = this.rolesGeneration;
    const subject = await entry?.store.get(session.principal.contextId, session.principal.uniqueId);
    const roles = Object.freeze(valuesOf(subject?.attributes.roles));
    if (generation !== this.rolesGeneration) return roles; // an invalidation raced with the read
    if (this.roles.size >= MAX_CACHED_ROLES) this.roles.clear();
    this.roles.set(key, { roles, at: this.now() });
    return roles;
  }

  /** Whether the session store and every subject store answer (`/ready`), each named: `{"sessions":"up","postgres":"down"}`. */
  async ready(): Promise<{ ready: boolean; checks: Record<string, 'up' | 'down'> }> {
    const sessions = this.sessionStore.ping().then(
      () => true,
      () => false,
    );
    const stores = [...this.stores.entries()].map(([kind, store]) => store.ping().catch(() => false).then((up) => [kind, up] as const));
    const answers = [['sessions', await sessions] as const, ...(await Promise.all(stores))];
    return { ready: answers.every(([, up]) => up), checks: Object.fromEntries(answers.map(([name, up]) => [name, up ? 'up' : 'down'])) };
  }

  async close(): Promise<void> {
    this.subjectEvents.stop();
    this.email.stop();
    await this.mailDelivery.stop();
    await this.mailStore?.close();
    await this.changes?.close();
    await Promise.all([...this.stores.values()].map((s) => s.close()));
    this.factorStore?.close();
    await this.sessions.close?.();
  }
}

function openFactorStore(file: string): FactorStore {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  return new FactorStore(file);
}

/** `server.tls.clientCA` and `crl`, read and verified now (at start and on every reload). */
function loadCertificates(config: SvcConfig): ClientCertificates | undefined {
  const tls = config.server.tls;
  if (!tls?.clientCA) return undefined;
  try {
    return new ClientCertificates({ clientCA: tls.clientCA, crl: tls.crl });
  } catch (error) {
    throw new ConfigError([`server.tls.${(error as Error).message}`]);
  }
}

import { createHash, randomBytes } from 'node:crypto';
import { AuthenticationRequired, InvalidClient, LoginFailed, OtpRequired, TooManyRequests } from '../../../common/src/errors';
import { scimClientOf } from '../scim/tokens';
import { SCIM_AUTHENTICATOR } from '../subjects/subject-operations';
import { sealPending, spendPending, type PendingLogin } from '../otp/pending-login';
import { principalName } from '../../../common/src/principal-name';
import { SECOND_FACTOR_PARAMETERS } from '../../../common/src/wire/credential-parameters';
import { Credentials, type AuthenticationRequest, type Authenticator } from '../authenticators/authenticator';
import { ClientCredentialRejected } from '../clientcred/client-credential';
import type { ClientConfig } from '../config/types';
import type { Core } from '../core';
import type { CertificateValidationDeps } from './certificate-validation';
import type { CreateSessionInput, IssuedSession } from '../sessions/session-manager';
import type { Principal, Session } from '../sessions/session';
import { fold } from '../subjects/subject';
import { openCredentialParams } from './client-validation';
import { validateCertificate } from './certificate-validation';
import { CertificateRejected } from '../certificates/client-certificates';
import type { PresentedCertificate } from '../certificates/presented-certificate';
import type { LockoutStore, Reservation } from './lockout-store';
import { NO_PARTIES } from '../audit';

export interface LoginInput {
  /** Request parameters by their configured names (`clientid`, `clientcred`, `user`, …). */
  params: Readonly<Record<string, string>>;
  /** The `svcid` header, when present. */
  header?: string;
  /** The peer address after trustProxy. */
  peer: string;
  /** The cookie value of the session the request carried; login ends it (fixation). */
  presentedCookie?: string;
  /** A client certificate (the handshake's, or a trusted proxy's X-Forwarded-Client-Cert): a certificate login. */
  certificate?: PresentedCertificate;
}

export interface LoginSuccess extends IssuedSession {
  authenticator: string;
}

/** A login's outcome before any session exists: what to make one of, and the audit's client and peer. */
interface Verified {
  session: CreateSessionInput;
  audit: Record<string, string>;
}

/** Audit lines name resolved subjects only: an unresolved "name" may be a password typed in the wrong field. */
const shown = (key: string | undefined) => (key === undefined ? undefined : key.startsWith('name:') ? '(unknown)' : key);

/** UserPass authenticators fail, after one computation, for a name their `resolveName` does not know. */
const isPasswordAuthenticator = (a: Authenticator): boolean => a.kind === 'UserPass' && a.resolveName !== undefined;

/** What each authenticator's `resolveName` answers for the name of one login request, asked once each. */
class NameResolutions {
  private readonly answers = new Map<Authenticator, Promise<Principal | undefined>>();

  constructor(private readonly user: string | undefined) {}

  resolve(a: Authenticator): Promise<Principal | undefined> {
    if (this.user === undefined || !a.resolveName) return Promise.resolve(undefined);
    let answer = this.answers.get(a);
    if (!answer) {
      answer = a.resolveName(this.user);
      this.answers.set(a, answer);
    }
    return answer;
  }
}

/** What a login uses of the core: sessions, lockout and nonces, the running clients and authenticators, hashing, audit and metrics. */
export type LoginDeps = Pick<Core, 'sessions' | 'lockout' | 'nonces' | 'hasher' | 'audit' | 'metrics' | 'now' | 'config' | 'client' | 'authenticator' | 'secondFactors' | 'email'> & CertificateValidationDeps;

/** SPEC 16: the detail of a correct password of a registrant who has not followed the link yet. */
export const UNVERIFIED_DETAIL = 'Confirm your e-mail address first';

/** The parameters of the second step (SPEC 15): fixed names, like the seed's `goto`. */
export const OTP_PARAM = SECOND_FACTOR_PARAMETERS.otp;
export const PENDING_PARAM = SECOND_FACTOR_PARAMETERS.pending;
/** The purpose of the pending token's key (SessionManager.derivedKey). */
const PENDING_KEY = 'otp-pending';

/**
 * POST {base}/login as a domain operation (SPEC section 4, seed 5.1.5 step 4): resolve the client,
 * validate it, throttle, run its authenticators in order, and issue a new session. Knows no HTTP.
 */
export class LoginService {
  constructor(private readonly core: LoginDeps) {}

  /** The core's lockout counters, wherever the core keeps them (a store failure is a 503: fail closed). */
  private get lockout(): LockoutStore {
    return this.core.lockout;
  }

  async login(input: LoginInput): Promise<LoginSuccess> {
    const { core } = this;
    const verified = await this.verify(input);
    const issued = await core.sessions.create(verified.session);
    if (input.presentedCookie !== undefined) await core.sessions.end(input.presentedCookie);
    this.succeed(verified, issued.session.handle);
    return { ...issued, authenticator: verified.session.authenticator };
  }

  /**
   * A login that keeps nothing (SPEC 13: SOAP's `svc:Security` header): the same client validation,
   * throttle, lockout, authenticators and audit as `login`, answered with a session that lives only
   * for the one call, so no stored session is left behind. Its handle is random, for the audit lines.
   */
  async transient(input: LoginInput): Promise<Session> {
    const verified = await this.verify(input);
    const now = this.core.now();
    const session: Session = { ...verified.session, handle: randomBytes(16).toString('base64url'), created: now, lastAccess: now, stateless: true };
    this.succeed(verified, session.handle, true);
    return session;
  }

  private succeed(verified: Verified, handle: string, transient = false): void {
    const { session, audit } = verified;
    this.core.metrics.logins.inc({ outcome: 'success', reason: session.authenticator });
    const principal = session.principal ? principalName(session.principal) : null;
    this.core.audit.record({ ...NO_PARTIES, event: 'login', outcome: 'success', reason: session.authenticator, ...audit, session: handle, principal, level: session.level, ...(transient ? { transient: true } : {}) });
  }

  /** Client, throttle, lockout and authenticators: what a session would be made of, or a refusal. */
  private async verify(input: LoginInput): Promise<Verified> {
    const { core } = this;
    const { client, request, audit } = input.certificate ? await this.validateCertificate(input, input.certificate) : await this.validateClient(input);
    const pending = input.params[PENDING_PARAM];
    if (pending !== undefined) return this.completePending(pending, client, request, audit);
    const authenticators = client.authenticators.flatMap((id) => {
      const a = core.authenticator(id);
      return a && a.applies(request) ? [{ id, a }] : [];
    });
    const user = request.credentials.get('user');
    const names = new NameResolutions(user);
    const subjects = user === undefined ? [] : await this.subjectKeys(authenticators.map((x) => x.a), names, user);
    // The attempt counts before any password is verified: concurrent attempts cannot pass a limit.
    const reservation = await this.reserve(subjects, audit);
    const subject = subjects.length > 0 ? shown(subjects.join(' ')) : undefined;

    if (reservation.locked) {
      await this.spendLikeFailure(authenticators.map((x) => x.a), client, request);
      this.fail({ ...audit, ...(subject === undefined ? {} : { subject }) }, 'locked');
      this.auditLocks(reservation, audit);
      throw new LoginFailed('Login failed.');
    }
    // A password authenticator that does not know the name cannot succeed: it is not tried, and the
    // one computation it would have spent is spent only if the login fails (below). So a success costs
    // one computation, and every failure as many as the client has password authenticators.
    const owed: Authenticator[] = [];
    for (const { id, a } of authenticators) {
      if (isPasswordAuthenticator(a) && (await names.resolve(a)) === undefined) {
        owed.push(a);
        continue;
      }
      const result = await a.authenticate(request);
      if (!result) continue;
      const key = result.principal ? principalName(result.principal) : undefined;
      const factor = result.level === 2 && result.principal && isPasswordAuthenticator(a) && core.secondFactors.has(result.principal);
      if (factor && result.principal && request.otp !== undefined && !(await core.secondFactors.verify(result.principal, request.otp))) {
        // A wrong code counts as a failed login (SPEC 15): the reservation stays counted.
        this.fail({ ...audit, subject: key }, 'otp_rejected');
        this.auditLocks(reservation, audit);
        throw new LoginFailed('Login failed.');
      }
      await this.lockout.release(reservation, key !== undefined && subjects.includes(key) ? key : undefined);
      if (result.principal && (await core.email.unverified(result.principal.contextId, result.principal.uniqueId))) {
        // SPEC 16: only after a correct password, so this tells nothing a wrong guess could learn.
        this.fail({ ...audit, subject: key }, 'unverified');
        throw new LoginFailed(UNVERIFIED_DETAIL);
      }
      if (factor && result.principal && request.otp === undefined) {
        // Only now, after a correct password, does the answer differ from a wrong password's.
        this.fail({ ...audit, subject: key }, 'otp_required');
        const token = sealPending(core.sessions.derivedKey(PENDING_KEY), { principal: result.principal, clientId: client.id, authenticator: id, message: result.message }, core.now());
        throw new OtpRequired(token);
      }
      const session: CreateSessionInput = {
        type: a.sessionType,
        // The seed's 2.1: an anonymous session obtained without a client shows no clientId.
        clientId: client.id === core.config.settings.defaultClient && result.principal === null ? '' : client.id,
        principal: result.principal,
        level: factor ? 3 : result.level,
        authenticator: id,
        message: result.message,
      };
      return { session, audit };
    }
    // A user name with an empty password reaches no password authenticator (nothing is verified, no
    // bind is made), yet fails at the cost a wrong password would have had.
    if (user !== undefined && !request.credentials.has('password')) owed.push(...this.passwordAuthenticators(client));
    for (const a of owed) await this.spendFailure(a, request.credentials.get('password') ?? '');
    this.fail({ ...audit, ...(subject === undefined ? {} : { subject }) }, authenticators.length ? 'rejected' : 'no_authenticator');
    this.auditLocks(reservation, audit);
    throw new LoginFailed('Login failed.');
  }

  /**
   * SPEC 14: a SCIM client's bearer token at the service root of `contextId`: a USER session of the
   * client's service subject for this one request (nothing stored, no cookie), level 1 like every
   * token. A missing or wrong token counts against the address like a failed login (429 once the
   * address is throttled) and is audited; a client's token at another context's root is 401 too.
   */
  async scimSession(token: string | undefined, contextId: string, peer: string): Promise<Session> {
    const client = token === undefined ? undefined : scimClientOf(this.core.config.scim.clients, token);
    const refuse = () =>
      new AuthenticationRequired('send the SCIM client\'s token as Authorization: Bearer <token>', {
        headers: { 'WWW-Authenticate': `Bearer realm="svc", error="invalid_token"` },
      });
    if (!client) {
      const audit = { peer };
      await this.reserve([], audit);
      this.fail({ ...audit, via: 'scim' }, token === undefined ? 'no_token' : 'wrong_token');
      throw refuse();
    }
    if (client.context !== contextId) {
      this.fail({ peer, client: client.id, via: 'scim' }, 'other_context');
      throw refuse();
    }
    const now = this.core.now();
    return { handle: randomBytes(16).toString('base64url'), type: 'USER', clientId: client.id, principal: { contextId, uniqueId: client.subject }, level: 1, authenticator: SCIM_AUTHENTICATOR, created: now, lastAccess: now, stateless: true };
  }

  /**
   * The second step (SPEC 15): `pending` from the password step and `otp`. The code is guessed like a
   * password: it takes its place in the subject's lockout counters before it is compared, and a lock
   * refuses it like a wrong one. The pending token is spent whatever the outcome.
   */
  private async completePending(token: string, client: ClientConfig, request: AuthenticationRequest, audit: Record<string, string>): Promise<Verified> {
    const { core } = this;
    const pending = await spendPending(core.sessions.derivedKey(PENDING_KEY), token, { clientId: client.id }, core.now(), core.nonces);
    const subject = pending ? principalName(pending.principal) : undefined;
    const reservation = await this.reserve(subject === undefined ? [] : [subject], audit);
    const ok = pending !== undefined && !reservation.locked && request.otp !== undefined && (await this.stillUsable(pending)) && (await core.secondFactors.verify(pending.principal, request.otp));
    if (!ok || !pending) {
      this.fail({ ...audit, ...(subject === undefined ? {} : { subject }) }, pending ? (reservation.locked ? 'locked' : 'otp_rejected') : 'pending_rejected');
      this.auditLocks(reservation, audit);
      throw new LoginFailed('Login failed.');
    }
    await this.lockout.release(reservation, subject);
    const session: CreateSessionInput = { type: 'USER', clientId: client.id, principal: pending.principal, level: 3, authenticator: pending.authenticator, message: pending.message };
    return { session, audit };
  }

  /** The pending login's subject may still log in (not disabled or deleted since its password step), through the same authenticator. */
  private async stillUsable(pending: PendingLogin): Promise<boolean> {
    const found = await this.core.authenticator(pending.authenticator)?.resolveName?.(pending.principal.uniqueId);
    return found?.contextId === pending.principal.contextId && found.uniqueId === pending.principal.uniqueId;
  }

  /** Takes the attempt's place in the counters; a throttled address is 429, before anything is verified. */
  private async reserve(subjects: readonly string[], audit: Record<string, string>): Promise<Reservation> {
    const reservation = await this.lockout.reserve(subjects, audit.peer);
    if (!reservation.throttled) return reservation;
    this.fail(audit, 'throttled');
    throw new TooManyRequests('too many failed logins from this address', { headers: { 'Retry-After': String(reservation.retryAfter) } });
  }

  /** The locks a failed attempt started (a successful one undid its own). */
  private auditLocks(reservation: Reservation, audit: Record<string, string | undefined>): void {
    for (const lock of reservation.started) this.core.audit.record({ ...NO_PARTIES, event: 'lockout', outcome: 'success', reason: lock.kind, ...audit, subject: shown(lock.subject) });
  }

  /** The client named by `clientid` (or the default one), validated by its clientcred when it has a secret. */
  private async validateClient(input: LoginInput): Promise<{ client: ClientConfig; request: AuthenticationRequest; audit: Record<string, string> }> {
    const { credentialNames, defaultClient } = this.core.config.settings;
    const clientId = input.params[credentialNames.client] || defaultClient;
    const audit = { client: clientId, peer: input.peer };
    const client = this.core.client(clientId);
    if (!client) {
      await this.reserve([], audit);
      this.fail(audit, 'unknown_client');
      throw new InvalidClient('The client could not be validated.');
    }
    return { client, request: await this.validate(client, input, audit), audit };
  }

  /**
   * A certificate login (SPEC section 13): the certificate names and proves its client. A refusal is
   * invalid_client and counts against the address; every audit line names the certificate's serial
   * and subject (never more: the key never reaches the server).
   */
  private async validateCertificate(input: LoginInput, presented: PresentedCertificate): Promise<{ client: ClientConfig; request: AuthenticationRequest; audit: Record<string, string> }> {
    try {
      const { client, certificate } = validateCertificate(this.core, presented, input.params);
      const audit = { client: client.id, peer: input.peer, via: presented.via, serial: certificate.serial, subject: certificate.subject };
      return { client, request: { credentials: new Credentials({}), client, peer: input.peer, clientValidated: true, certificate }, audit };
    } catch (error) {
      if (!(error instanceof CertificateRejected)) throw error;
      const audit = { peer: input.peer, via: presented.via, ...(error.summary ?? {}) };
      await this.reserve([], audit);
      this.core.metrics.logins.inc({ outcome: 'failure', reason: 'invalid_client' });
      this.core.audit.record({ ...NO_PARTIES, event: 'client_validation', outcome: 'failure', reason: `certificate:${error.reason}`, ...audit });
      throw new InvalidClient('The client certificate could not be validated.');
    }
  }

  /** Client validation; its failures count against the address like any failed login. */
  private async validate(client: ClientConfig, input: LoginInput, audit: Record<string, string>): Promise<AuthenticationRequest> {
    const names = this.core.config.settings.credentialNames;
    const p = input.params;
    try {
      const opened = await openCredentialParams(
        client,
        { clientcred: p[names.clientcred], user: p[names.user], password: p[names.password], token: p[names.token], otp: p[OTP_PARAM] },
        this.core.now(),
        this.core.nonces,
      );
      const credentials = new Credentials({ user: opened.user, password: opened.password, token: opened.token, header: input.header });
      return { credentials, client, peer: input.peer, clientValidated: opened.validated, ...(opened.otp ? { otp: opened.otp } : {}) };
    } catch (error) {
      if (!(error instanceof ClientCredentialRejected)) throw error;
      await this.reserve([], audit);
      this.core.metrics.logins.inc({ outcome: 'failure', reason: 'invalid_client' });
      this.core.audit.record({ ...NO_PARTIES, event: 'client_validation', outcome: 'failure', reason: error.param ? `${error.reason}:${error.param}` : error.reason, ...audit });
      throw error;
    }
  }

  /**
   * Every subject the name resolves to through the client's authenticators (SPEC section 4: the
   * attempt counts against each), or the name itself when it resolves to none.
   */
  private async subjectKeys(authenticators: Authenticator[], names: NameResolutions, user: string): Promise<string[]> {
    const keys = new Set<string>();
    for (const a of authenticators) {
      const principal = await names.resolve(a);
      if (principal) keys.add(principalName(principal));
    }
    // Hashed: a name may be up to 16 KiB, and the lockout table must stay small per key.
    return keys.size > 0 ? [...keys] : [`name:${createHash('sha256').update(fold(user), 'utf8').digest('base64url')}`];
  }

  /**
   * A locked attempt does the work a failed one would: each applicable password authenticator
   * spends exactly one hash computation on a failure, so one dummy computation each; a user name
   * without a password reaches none, and fails at the cost of the client's password authenticators.
   */
  private async spendLikeFailure(authenticators: Authenticator[], client: ClientConfig, request: AuthenticationRequest): Promise<void> {
    const password = request.credentials.get('password');
    const spending = request.credentials.has('user') && !request.credentials.has('password') ? this.passwordAuthenticators(client) : authenticators.filter((a) => a.kind === 'UserPass');
    for (const a of spending) await this.spendFailure(a, password ?? '');
  }

  /** One failure's work of a password authenticator: its own (a directory round trip) or a dummy hash. */
  private async spendFailure(a: Authenticator, password: string): Promise<void> {
    if (a.spendFailure) await a.spendFailure(password);
    else await this.core.hasher.verifyDummy(password);
  }

  /** The client's password authenticators (UserPass that resolve names), in order. */
  private passwordAuthenticators(client: ClientConfig): Authenticator[] {
    return client.authenticators.flatMap((id) => {
      const a = this.core.authenticator(id);
      return a && isPasswordAuthenticator(a) ? [a] : [];
    });
  }

  private fail(audit: Record<string, string | undefined>, reason: string): void {
    this.core.metrics.logins.inc({ outcome: 'failure', reason });
    // A failed login has no session of its own; `audit` names the client and the peer.
    this.core.audit.record({ ...NO_PARTIES, event: 'login', outcome: 'failure', reason, ...audit });
  }
}


import { createHash } from 'node:crypto';
import { InvalidClient, LoginFailed, TooManyRequests } from '../../../common/src/errors';
import { Credentials, type AuthenticationRequest, type Authenticator } from '../authenticators/authenticator';
import { ClientCredentialRejected } from '../clientcred/client-credential';
import type { ClientConfig } from '../config/types';
import type { Core } from '../core';
import type { IssuedSession } from '../sessions/session-manager';
import type { Principal } from '../sessions/session';
import { fold } from '../subjects/subject';
import { openCredentialParams } from './client-validation';
import type { LockoutStore } from './lockout-store';
import { perCore } from '../per-core';

export interface LoginInput {
  /** Request parameters by their configured names (`clientid`, `clientcred`, `user`, …). */
  params: Readonly<Record<string, string>>;
  /** The `svcid` header, when present. */
  header?: string;
  /** The peer address after trustProxy. */
  peer: string;
  /** The cookie value of the session the request carried; login ends it (fixation). */
  presentedCookie?: string;
}

export interface LoginSuccess extends IssuedSession {
  authenticator: string;
}

const principalKey = (p: Principal) => `${p.contextId}/${p.uniqueId}`;
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

/**
 * POST {base}/login as a domain operation (SPEC section 4, seed 5.1.5 step 4): resolve the client,
 * validate it, throttle, run its authenticators in order, and issue a new session. Knows no HTTP.
 */
export class LoginService {
  constructor(private readonly core: Core) {}

  /** The core's lockout counters, wherever the core keeps them (a store failure is a 503: fail closed). */
  private get lockout(): LockoutStore {
    return this.core.lockout;
  }

  async login(input: LoginInput): Promise<LoginSuccess> {
    const { core } = this;
    const g = core.config.global;
    const clientId = input.params[g['auth.token.name.client']] || g['server.defaultclient'];
    const audit = { client: clientId, peer: input.peer };
    const wait = await this.lockout.retryAfter(input.peer);
    if (wait > 0) {
      this.fail(audit, 'throttled');
      throw new TooManyRequests('too many failed logins from this address', { headers: { 'Retry-After': String(wait) } });
    }
    const client = core.client(clientId);
    if (!client) {
      await this.lockout.recordFailure(undefined, input.peer);
      this.fail(audit, 'unknown_client');
      throw new InvalidClient('The client could not be validated.');
    }
    const request = await this.validate(client, input, audit);
    const authenticators = client.authenticators.flatMap((id) => {
      const a = core.authenticator(id);
      return a && a.applies(request) ? [{ id, a }] : [];
    });
    const user = request.credentials.get('user');
    const names = new NameResolutions(user);
    const subjectKey = user === undefined ? undefined : await this.subjectKey(authenticators.map((x) => x.a), names, user);

    if (subjectKey !== undefined && (await this.lockout.isLocked(subjectKey, input.peer))) {
      await this.spendLikeFailure(authenticators.map((x) => x.a), request);
      await this.lockout.recordFailure(subjectKey, input.peer);
      this.fail({ ...audit, subject: shown(subjectKey) }, 'locked');
      throw new LoginFailed('Login failed.');
    }
    // A password authenticator that does not know the name cannot succeed: it is not tried, and the
    // one computation it would have spent is spent only if the login fails (below). So a success costs
    // one computation, and every failure as many as the client has password authenticators.
    let owed = 0;
    for (const { id, a } of authenticators) {
      if (isPasswordAuthenticator(a) && (await names.resolve(a)) === undefined) {
        owed++;
        continue;
      }
      const result = await a.authenticate(request);
      if (!result) continue;
      if (subjectKey !== undefined) await this.lockout.recordSuccess(subjectKey, input.peer);
      const issued = await core.sessions.create({
        type: a.sessionType,
        // The seed's 2.1: an anonymous session obtained without a client shows no clientId.
        clientId: client.id === g['server.defaultclient'] && result.principal === null ? '' : client.id,
        principal: result.principal,
        level: result.level,
        authenticator: id,
        message: result.message,
      });
      if (input.presentedCookie !== undefined) await core.sessions.end(input.presentedCookie);
      core.metrics.logins.inc({ outcome: 'success', reason: id });
      core.audit.record({ event: 'login', outcome: 'success', reason: id, ...audit, session: issued.session.handle, principal: result.principal ? principalKey(result.principal) : undefined, level: result.level });
      return { ...issued, authenticator: id };
    }
    for (let i = 0; i < owed; i++) await core.hasher.verifyDummy(request.credentials.get('password') ?? '');
    const locks = await this.lockout.recordFailure(subjectKey, input.peer);
    this.fail({ ...audit, subject: shown(subjectKey) }, authenticators.length ? 'rejected' : 'no_authenticator');
    for (const lock of locks) core.audit.record({ event: 'lockout', outcome: 'success', reason: lock, subject: shown(subjectKey), peer: input.peer });
    throw new LoginFailed('Login failed.');
  }

  /** Client validation; its failures count against the address like any failed login. */
  private async validate(client: ClientConfig, input: LoginInput, audit: Record<string, string>): Promise<AuthenticationRequest> {
    const g = this.core.config.global;
    const p = input.params;
    try {
      const opened = await openCredentialParams(
        client,
        { clientcred: p[g['auth.token.name.clientcred']], user: p[g['auth.token.name.user']], password: p[g['auth.token.name.password']], token: p[g['auth.token.name.token']] },
        this.core.now(),
        this.core.nonces,
      );
      const credentials = new Credentials({ user: opened.user, password: opened.password, token: opened.token, header: input.header });
      return { credentials, client, peer: input.peer, clientValidated: opened.validated };
    } catch (error) {
      if (!(error instanceof ClientCredentialRejected)) throw error;
      await this.lockout.recordFailure(undefined, input.peer);
      this.core.metrics.logins.inc({ outcome: 'failure', reason: 'invalid_client' });
      this.core.audit.record({ event: 'client_validation', outcome: 'failure', reason: error.param ? `${error.reason}:${error.param}` : error.reason, ...audit });
      throw error;
    }
  }

  /** The resolved subject when some authenticator of the client knows the name, else the name. */
  private async subjectKey(authenticators: Authenticator[], names: NameResolutions, user: string): Promise<string> {
    for (const a of authenticators) {
      const principal = await names.resolve(a);
      if (principal) return principalKey(principal);
    }
    // Hashed: a name may be up to 16 KiB, and the lockout table must stay small per key.
    return `name:${createHash('sha256').update(fold(user), 'utf8').digest('base64url')}`;
  }

  /**
   * A locked attempt does the work a failed one would: each applicable password authenticator
   * spends exactly one hash computation on a failure, so one dummy computation each.
   */
  private async spendLikeFailure(authenticators: Authenticator[], request: AuthenticationRequest): Promise<void> {
    const password = request.credentials.get('password') ?? '';
    for (const a of authenticators) if (a.kind === 'UserPass') await this.core.hasher.verifyDummy(password);
  }

  private fail(audit: Record<string, string | undefined>, reason: string): void {
    this.core.metrics.logins.inc({ outcome: 'failure', reason });
    this.core.audit.record({ event: 'login', outcome: 'failure', reason, ...audit });
  }
}

/** One LoginService per core, shared by the login routes and the pages. */
export const loginServiceOf = perCore((core) => new LoginService(core));

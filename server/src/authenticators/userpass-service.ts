import { principalName } from '../../../common/src/principal-name';
import { NO_PARTIES } from '../audit';
import type { AuthenticatorConfig } from '../config/types';
import { recordRefusedHash } from '../passwords/hash-cost';
import { PhcFormatError } from '../passwords/phc';
import type { Principal } from '../sessions/session';
import { valuesOf } from '../subjects/subject';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator';
import type { AuthenticatorDependencies } from './dependencies';
import { contextOf, findLoginSubject } from './subject-lookup';

/**
 * User id and password checked against the PHC hash in the context's `definition.password`
 * attribute (seed 2.3, 5.1.6). Every attempt costs exactly one hash computation, whether the user
 * is unknown, disabled, has no usable hash or gave a wrong password, so neither the answer nor the
 * work done tells them apart.
 *
 * On a context whose store keeps the passwords (ldap, SPEC 13) the password is checked by a bind as
 * the DN of the entry the lookup's search found (its opaque `passwordTarget`: no second search) on a
 * fresh connection, never with an empty password; every failure that makes no bind (unknown,
 * disabled, empty) spends a fresh connection and one round trip instead (spendFailure).
 */
export class UserPassServiceAuthenticator implements Authenticator {
  readonly kind = 'UserPass';
  readonly sessionType;
  private readonly contextId: string;

  constructor(readonly config: AuthenticatorConfig, private readonly deps: AuthenticatorDependencies) {
    this.sessionType = config.sessionType;
    this.contextId = contextOf(config);
  }

  applies(request: AuthenticationRequest): boolean {
    return request.credentials.has('user') && request.credentials.has('password');
  }

  async resolveName(user: string): Promise<Principal | undefined> {
    return (await findLoginSubject(this.deps.subjects, this.contextId, user)).found?.principal;
  }

  async authenticate(request: AuthenticationRequest): Promise<AuthenticationResult | null> {
    const user = request.credentials.get('user') ?? '';
    const password = request.credentials.get('password') ?? '';
    const { hasher, subjects } = this.deps;
    const { found } = await findLoginSubject(subjects, this.contextId, user);
    const directory = subjects.directoryPasswords(this.contextId);
    if (directory) {
      if (!found?.passwordTarget || password === '') {
        await directory.spend();
        return null;
      }
      return (await directory.verify(found.passwordTarget, password)) ? { principal: found.principal, level: 2 } : null;
    }
    const attribute = subjects.context(this.contextId).config.definition.password;
    const hash = found && attribute ? valuesOf(found.subject.attributes[attribute])[0] : undefined;
    if (!found || hash === undefined) {
      await hasher.verifyDummy(password);
      return null;
    }
    let verdict;
    try {
      verdict = await hasher.verify(hash, password);
    } catch (error) {
      // A damaged stored hash must neither log the user in nor answer faster than a wrong password.
      if (!(error instanceof PhcFormatError)) throw error;
      await hasher.verifyDummy(password);
      return null;
    }
    recordRefusedHash(this.deps.audit, principalName(found.principal), verdict);
    if (!verdict.ok) return null;
    if (verdict.needsRehash) await this.upgrade(found.principal, password, request);
    return { principal: found.principal, level: 2 };
  }

  async spendFailure(password: string): Promise<void> {
    const directory = this.deps.subjects.directoryPasswords(this.contextId);
    if (directory) await directory.spend();
    else await this.deps.hasher.verifyDummy(password);
  }

  /** Re-hashes with the configured parameters; a failure here must not fail the login. */
  private async upgrade(principal: Principal, password: string, during: AuthenticationRequest): Promise<void> {
    try {
      const hash = await this.deps.hasher.hash(password);
      await this.deps.subjects.setPasswordHash(principal.contextId, principal.uniqueId, hash);
    } catch {
      // During a login: the session is not made yet.
      this.deps.audit.record({ ...NO_PARTIES, event: 'subject_write', outcome: 'failure', reason: 'hash_upgrade', principal: principalName(principal), client: during.client.id, peer: during.peer });
    }
  }
}

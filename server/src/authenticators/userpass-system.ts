import { timingSafeEqual } from 'node:crypto';
import type { AuthenticatorConfig } from '../config/types';
import { recordRefusedHash } from '../passwords/hash-cost';
import type { Principal } from '../sessions/session';
import { fold } from '../subjects/subject';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator';
import type { AuthenticatorDependencies } from './dependencies';

/** Compares folded names without an early exit, so the superuser's name does not leak by timing. */
function sameName(a: string, b: string): boolean {
  const x = Buffer.from(fold(a), 'utf8');
  const y = Buffer.from(fold(b), 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The superuser of the configuration file (`system`: user id and PHC hash). Like the service
 * variant, every attempt costs one hash computation whatever the name.
 */
export class UserPassSystemAuthenticator implements Authenticator {
  readonly kind = 'UserPass';
  readonly sessionType;

  constructor(readonly config: AuthenticatorConfig, private readonly deps: AuthenticatorDependencies) {
    this.sessionType = config.sessionType;
  }

  applies(request: AuthenticationRequest): boolean {
    return request.credentials.has('user') && request.credentials.has('password');
  }

  private principal(): Principal | undefined {
    const system = this.deps.config().system;
    return system ? { uniqueId: system.userId, contextId: this.config.context ?? '' } : undefined;
  }

  async resolveName(user: string): Promise<Principal | undefined> {
    const principal = this.principal();
    return principal && sameName(user, principal.uniqueId) ? principal : undefined;
  }

  async authenticate(request: AuthenticationRequest): Promise<AuthenticationResult | null> {
    const password = request.credentials.get('password') ?? '';
    const system = this.deps.config().system;
    const principal = await this.resolveName(request.credentials.get('user') ?? '');
    if (!system || !principal) {
      await this.deps.hasher.verifyDummy(password);
      return null;
    }
    const verdict = await this.deps.hasher.verify(system.passwordHash, password);
    recordRefusedHash(this.deps.audit, system.userId, verdict);
    // The hash lives in the configuration file, which the server never rewrites: no upgrade here.
    return verdict.ok ? { principal, level: 2 } : null;
  }
}

import type { AuthenticatorConfig } from '../config/types';
import type { Principal } from '../sessions/session';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator';
import type { AuthenticatorDependencies } from './dependencies';
import { contextOf, findLoginSubject } from './subject-lookup';

/**
 * A user the client vouches for (a portal whose user already logged in there): `user` without a
 * password, accepted only from a client that has a secret, proved it with a valid clientcred in this
 * very request, and is allowed principal assertion (seed 1.3, 5.3.2). Level 1.
 */
export class TokenClientPrincipalAuthenticator implements Authenticator {
  readonly kind = 'Token';
  readonly sessionType;
  private readonly contextId: string;

  constructor(readonly config: AuthenticatorConfig, private readonly deps: AuthenticatorDependencies) {
    this.sessionType = config.sessionType;
    this.contextId = contextOf(config);
  }

  applies(request: AuthenticationRequest): boolean {
    const c = request.credentials;
    return c.has('user') && !c.has('password');
  }

  async resolveName(user: string): Promise<Principal | undefined> {
    return (await findLoginSubject(this.deps.subjects, this.contextId, user)).found?.principal;
  }

  async authenticate(request: AuthenticationRequest): Promise<AuthenticationResult | null> {
    const { client } = request;
    if (!request.clientValidated || !client.secret?.length || !client.allowPrincipalAssertion) return null;
    const principal = await this.resolveName(request.credentials.get('user') ?? '');
    return principal ? { principal, level: 1 } : null;
  }
}

import { parsePrincipalName } from '../../../common/src/principal-name';
import type { AuthenticatorConfig } from '../config/types';
import type { Principal } from '../sessions/session';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator';
import type { AuthenticatorDependencies } from './dependencies';
import { contextOf } from './subject-lookup';

/**
 * A user the client vouches for (a portal whose user already logged in there): `user` without a
 * password, accepted only from a client that has a secret, proved it with a valid clientcred in this
 * very request, and is allowed principal assertion (seed 1.3, 5.3.2). Level 1.
 *
 * `user` is `contextId/uniqueId` (SPEC section 4): one authenticator serves one context, and accepts
 * only a user of that context whose uniqueId matches exactly. No authenid, no case folding: a login
 * name is how a person types who they are, but an assertion names a subject the client already
 * resolved, so `alice` registered in `customers` can never be read as `employees/alice`, nor a mail
 * address or another spelling as anyone.
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

  /** The subject `contextId/uniqueId` names, when it is of this context, exists exactly so, and is not disabled. */
  async resolveName(user: string): Promise<Principal | undefined> {
    const name = parsePrincipalName(user);
    if (name === undefined || name.contextId !== this.contextId) return undefined;
    const subject = await this.deps.subjects.context(this.contextId).store.get(this.contextId, name.uniqueId);
    // The store's get is exact; the comparison says so here too, whatever the store's collation.
    if (!subject || subject.uniqueId !== name.uniqueId || subject.attributes.disabled === 'true') return undefined;
    return { contextId: this.contextId, uniqueId: subject.uniqueId };
  }

  async authenticate(request: AuthenticationRequest): Promise<AuthenticationResult | null> {
    const { client } = request;
    if (!request.clientValidated || !client.secret?.length || !client.allowPrincipalAssertion) return null;
    const principal = await this.resolveName(request.credentials.get('user') ?? '');
    return principal ? { principal, level: 1 } : null;
  }
}

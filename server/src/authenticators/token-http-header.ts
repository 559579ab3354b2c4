import { NO_PARTIES } from '../audit';
import type { AuthenticatorConfig } from '../config/types';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator';
import type { AuthenticatorDependencies } from './dependencies';
import { contextOf, findLoginSubject } from './subject-lookup';
import { TrustedPeers } from './trusted-peers';

/**
 * A principal named by an identity-provider agent in front of the server, in the `svcid` header
 * (`auth.token.name.httpheader`). Anyone can send that header, so it counts only when the request's
 * peer (after trustProxy) is one of `options.trustedPeers`; otherwise it is ignored and audited.
 */
export class TokenHttpHeaderAuthenticator implements Authenticator {
  readonly kind = 'Token';
  readonly sessionType;
  private readonly contextId: string;
  private readonly trusted: TrustedPeers;

  constructor(readonly config: AuthenticatorConfig, private readonly deps: AuthenticatorDependencies) {
    this.sessionType = config.sessionType;
    this.contextId = contextOf(config);
    this.trusted = new TrustedPeers(config.options.trustedPeers, `authenticator ${config.id}`);
  }

  applies(request: AuthenticationRequest): boolean {
    return request.credentials.has('header');
  }

  async authenticate(request: AuthenticationRequest): Promise<AuthenticationResult | null> {
    if (!this.trusted.has(request.peer)) {
      this.deps.audit.record({ ...NO_PARTIES, event: 'header_token_ignored', outcome: 'failure', reason: 'untrusted_peer', peer: request.peer, client: request.client.id });
      return null;
    }
    const { found } = await findLoginSubject(this.deps.subjects, this.contextId, request.credentials.get('header') ?? '');
    return found ? { principal: found.principal, level: 1 } : null;
  }
}

import type { AuthenticatorConfig } from '../config/types';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator';

/** Always succeeds, with no principal; tried only when the request carries no credentials. */
export class AnonymousAuthenticator implements Authenticator {
  readonly kind = 'Anonymous';
  readonly sessionType;

  constructor(readonly config: AuthenticatorConfig) {
    this.sessionType = config.sessionType;
  }

  applies(request: AuthenticationRequest): boolean {
    const c = request.credentials;
    return !c.has('user') && !c.has('password') && !c.has('token') && !c.has('header');
  }

  async authenticate(): Promise<AuthenticationResult> {
    return { principal: null, level: 0 };
  }
}

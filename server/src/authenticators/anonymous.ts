import type { AuthenticatorConfig } from '../config/types';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator';

/**
 * Always succeeds, with no principal; tried only when the request carries no credentials (a client
 * certificate is one). The
 * `svcid` header is not a credential here: an untrusted one is ignored (SPEC section 4), so it must
 * not stop a request from getting its anonymous session.
 */
export class AnonymousAuthenticator implements Authenticator {
  readonly kind = 'Anonymous';
  readonly sessionType;

  constructor(readonly config: AuthenticatorConfig) {
    this.sessionType = config.sessionType;
  }

  applies(request: AuthenticationRequest): boolean {
    const c = request.credentials;
    return !c.has('user') && !c.has('password') && !c.has('token') && request.certificate === undefined;
  }

  async authenticate(): Promise<AuthenticationResult> {
    return { principal: null, level: 0 };
  }
}

import type { VerifiedCertificate } from '../certificates/client-certificates';
import type { AuthenticatorConfig } from '../config/types';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator';
import type { AuthenticatorDependencies } from './dependencies';
import { contextOf, findLoginSubject } from './subject-lookup';

export type PrincipalFrom = 'san-email' | 'subject-cn';

/**
 * An X.509 client certificate (SPEC section 13; seed 1.5, the RESTful programmatic client's
 * artifact). Applies only to a login that presented a certificate; by then client validation
 * (login/certificate-validation.ts) has verified its chain, validity and revocation and found the
 * client it names, so a failure of those is `invalid_client` before any authenticator runs. Here:
 * without `options.principalFrom` the session is the client's own, with no principal; with it, the
 * certificate's one e-mail SAN or one subject CN is resolved as a login name is (the context's
 * authenid attributes, case-insensitively), and a name that designates no usable subject fails
 * (`login_failed`). Level 1.
 */
export class ClientCertificateAuthenticator implements Authenticator {
  readonly kind = 'Token';
  readonly sessionType;
  private readonly principalFrom?: PrincipalFrom;

  constructor(readonly config: AuthenticatorConfig, private readonly deps: AuthenticatorDependencies) {
    this.sessionType = config.sessionType;
    this.principalFrom = config.options.principalFrom as PrincipalFrom | undefined; // checked by config/references.ts
  }

  applies(request: AuthenticationRequest): boolean {
    return request.certificate !== undefined;
  }

  async authenticate(request: AuthenticationRequest): Promise<AuthenticationResult | null> {
    const certificate = request.certificate;
    if (!certificate || certificate.clientId !== request.client.id) return null;
    if (!this.principalFrom) return { principal: null, level: 1 };
    const name = this.principalName(certificate);
    if (name === undefined) return null;
    const { found } = await findLoginSubject(this.deps.subjects, contextOf(this.config), name);
    return found ? { principal: found.principal, level: 1 } : null;
  }

  /** The one name the certificate gives; none, or two that could name different subjects, is no name. */
  private principalName(certificate: VerifiedCertificate): string | undefined {
    const names = this.principalFrom === 'san-email' ? certificate.emails : certificate.commonNames;
    return names.length === 1 && names[0] !== '' ? names[0] : undefined;
  }
}

import type { AuthenticatorConfig, AuthenticatorKind, ClientConfig, SessionType } from '../config/types';
import type { VerifiedCertificate } from '../certificates/client-certificates';
import type { Principal } from '../sessions/session';

/**
 * The values a request presented, by name (the seed's 2.4): immutable once built; an accessor
 * returns one credential. Sealed values have already been opened by client validation.
 */
export class Credentials {
  private readonly values: ReadonlyMap<string, string>;

  constructor(values: Record<string, string | undefined>) {
    this.values = new Map(Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
    Object.freeze(this);
  }

  get(name: 'user' | 'password' | 'token' | 'header'): string | undefined {
    return this.values.get(name);
  }

  has(name: 'user' | 'password' | 'token' | 'header'): boolean {
    return this.values.has(name);
  }
}

export interface AuthenticationRequest {
  credentials: Credentials;
  client: ClientConfig;
  /** The peer address (after trustProxy), for the header authenticator's trusted peers. */
  peer: string;
  /** True when the client proved itself with a clientcred (a client with a secret). */
  clientValidated: boolean;
  /** The client certificate of a certificate login, already verified (login/certificate-validation.ts). */
  certificate?: VerifiedCertificate;
  /** The second factor's code (`otp`, SPEC 15), opened: the login service checks it, no authenticator does. */
  otp?: string;
}

export interface AuthenticationResult {
  principal: Principal | null;
  level: 0 | 1 | 2;
  message?: string;
}

/**
 * One interface, one file per variant (seed 2.3). `applies` says whether the request carries this
 * kind's credentials (only then is the authenticator tried); `authenticate` answers a result, or
 * null for a failure. A failure never throws for wrong credentials; it may throw ServiceUnavailable.
 */
export interface Authenticator {
  readonly config: AuthenticatorConfig;
  readonly kind: AuthenticatorKind;
  readonly sessionType: SessionType;
  applies(request: AuthenticationRequest): boolean;
  authenticate(request: AuthenticationRequest): Promise<AuthenticationResult | null>;
  /**
   * The principal a login name designates, without checking any secret: lockout is keyed by the
   * resolved subject rather than by the spelling of its name (SPEC section 4). A UserPass
   * authenticator's `authenticate` must fail, after one hash computation, for a name this answers
   * undefined for: the login then skips it and spends that computation only when the login fails.
   */
  resolveName?(user: string): Promise<Principal | undefined>;
  /**
   * The work one failure of this password authenticator costs, spent without verifying anything
   * (a login that skips it, or is locked, spends this so that every failure costs the same): a
   * dummy hash computation by default; a bind's worth of directory round trip for an ldap context.
   */
  spendFailure?(password: string): Promise<void>;
}

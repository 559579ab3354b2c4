import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { ServiceUnavailable } from '../../../common/src/errors';
import type { AuthenticatorConfig } from '../config/types';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator';
import type { AuthenticatorDependencies } from './dependencies';
import { contextOf, findLoginSubject } from './subject-lookup';

interface IntrospectionOptions {
  mode: 'introspection';
  url: string;
  clientId: string;
  clientSecret: string;
  issuer?: string;
}

interface JwtOptions {
  mode: 'jwt';
  jwks: JWTVerifyGetKey;
  issuer: string;
  audience: string;
  algorithms?: string[];
}

const TIMEOUT_MS = 5000;

function text(options: Record<string, unknown>, name: string, id: string, required: boolean): string | undefined {
  const value = options[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value.length === 0) throw new TypeError(`authenticator ${id}: options.${name} must be a non-empty string`);
  return value;
}

/** Either RFC 7662 introspection or a JWT checked against a JWKS, chosen by the options given. */
function parseOptions(config: AuthenticatorConfig): IntrospectionOptions | JwtOptions {
  const o = config.options;
  if (o.introspectionUrl !== undefined) {
    return {
      mode: 'introspection',
      url: new URL(text(o, 'introspectionUrl', config.id, true)!).href,
      clientId: text(o, 'clientId', config.id, true)!,
      clientSecret: text(o, 'clientSecret', config.id, true)!,
      issuer: text(o, 'issuer', config.id, false),
    };
  }
  const algorithms = Array.isArray(o.algorithms) ? o.algorithms.filter((a): a is string => typeof a === 'string') : undefined;
  return {
    mode: 'jwt',
    jwks: createRemoteJWKSet(new URL(text(o, 'jwksUrl', config.id, true)!), { timeoutDuration: TIMEOUT_MS }),
    issuer: text(o, 'issuer', config.id, true)!,
    audience: text(o, 'audience', config.id, true)!,
    algorithms,
  };
}

/** jose's verdicts on the token itself; anything else (network, timeouts) is our outage, not a failure. */
const INVALID_TOKEN = [errors.JWTExpired, errors.JWTClaimValidationFailed, errors.JWTInvalid, errors.JWSInvalid, errors.JWSSignatureVerificationFailed, errors.JWKSNoMatchingKey, errors.JOSEAlgNotAllowed, errors.JOSENotSupported];

/**
 * An identity-provider session token in the `token` parameter (seed 2.3). The principal is the
 * token's `sub` (or `options.claim`) matched to one subject of the authenticator's context. Level 1.
 */
export class TokenIdpSessionAuthenticator implements Authenticator {
  readonly kind = 'Token';
  readonly sessionType;
  private readonly contextId: string;
  private readonly claim: string;
  private readonly mode: IntrospectionOptions | JwtOptions;

  constructor(readonly config: AuthenticatorConfig, private readonly deps: AuthenticatorDependencies) {
    this.sessionType = config.sessionType;
    this.contextId = contextOf(config);
    this.claim = text(config.options, 'claim', config.id, false) ?? 'sub';
    this.mode = parseOptions(config);
  }

  applies(request: AuthenticationRequest): boolean {
    return request.credentials.has('token');
  }

  async authenticate(request: AuthenticationRequest): Promise<AuthenticationResult | null> {
    const token = request.credentials.get('token') ?? '';
    const claims = this.mode.mode === 'jwt' ? await this.verifyJwt(this.mode, token) : await this.introspect(this.mode, token);
    const name = claims?.[this.claim];
    // The login service writes the one audit line of a failed attempt.
    if (typeof name !== 'string' || name.length === 0) return null;
    const { found } = await findLoginSubject(this.deps.subjects, this.contextId, name);
    return found ? { principal: found.principal, level: 1 } : null;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  private async verifyJwt(options: JwtOptions, token: string): Promise<Record<string, unknown> | undefined> {
    try {
      const { payload } = await jwtVerify(token, options.jwks, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms: options.algorithms,
        currentDate: new Date(this.now()),
        requiredClaims: ['exp'],
      });
      return payload;
    } catch (error) {
      if (INVALID_TOKEN.some((kind) => error instanceof kind)) return undefined;
      throw new ServiceUnavailable('the identity provider cannot be reached', { cause: error });
    }
  }

  /** RFC 7662: POST token with client_secret_basic; only `active: true` with a live `exp` counts. */
  private async introspect(options: IntrospectionOptions, token: string): Promise<Record<string, unknown> | undefined> {
    const basic = Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64');
    let body: unknown;
    try {
      const response = await fetch(options.url, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'error',
      });
      if (!response.ok) throw new Error(`introspection answered ${response.status}`);
      body = await response.json();
    } catch (error) {
      throw new ServiceUnavailable('the identity provider cannot be reached', { cause: error });
    }
    if (!body || typeof body !== 'object') return undefined;
    const claims = body as Record<string, unknown>;
    if (claims.active !== true) return undefined;
    if (typeof claims.exp === 'number' && claims.exp * 1000 <= this.now()) return undefined;
    if (options.issuer !== undefined && claims.iss !== undefined && claims.iss !== options.issuer) return undefined;
    return claims;
  }
}

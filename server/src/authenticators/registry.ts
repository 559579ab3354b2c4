import type { AuthenticatorConfig, AuthenticatorVariant } from '../config/types';
import { AnonymousAuthenticator } from './anonymous';
import type { Authenticator } from './authenticator';
import { ClientCertificateAuthenticator } from './client-certificate';
import type { AuthenticatorDependencies } from './dependencies';
import { TokenClientPrincipalAuthenticator } from './token-client-principal';
import { TokenHttpHeaderAuthenticator } from './token-http-header';
import { TokenIdpSessionAuthenticator } from './token-idp-session';
import { UserPassServiceAuthenticator } from './userpass-service';
import { UserPassSystemAuthenticator } from './userpass-system';

type Factory = (config: AuthenticatorConfig, deps: AuthenticatorDependencies) => Authenticator;

/** Every variant the configuration may name, and the class that implements it. */
const VARIANTS: Record<AuthenticatorVariant, Factory> = {
  anonymous: (config) => new AnonymousAuthenticator(config),
  service: (config, deps) => new UserPassServiceAuthenticator(config, deps),
  system: (config, deps) => new UserPassSystemAuthenticator(config, deps),
  clientPrincipal: (config, deps) => new TokenClientPrincipalAuthenticator(config, deps),
  httpHeader: (config, deps) => new TokenHttpHeaderAuthenticator(config, deps),
  idpSession: (config, deps) => new TokenIdpSessionAuthenticator(config, deps),
  clientCertificate: (config, deps) => new ClientCertificateAuthenticator(config, deps),
};

export function createAuthenticators(configs: readonly AuthenticatorConfig[], deps: AuthenticatorDependencies): Map<string, Authenticator> {
  const out = new Map<string, Authenticator>();
  for (const config of configs) {
    const factory = VARIANTS[config.variant];
    if (!factory) throw new Error(`authenticator variant ${config.variant} is not available`);
    out.set(config.id, factory(config, deps));
  }
  return out;
}

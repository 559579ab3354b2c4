import type { AuthenticatorConfig, AuthenticatorVariant } from '../config/types';
import { AnonymousAuthenticator } from './anonymous';
import type { Authenticator } from './authenticator';
import type { AuthenticatorDependencies } from './dependencies';

type Factory = (config: AuthenticatorConfig, deps: AuthenticatorDependencies) => Authenticator;

/** Every variant the configuration may name, and the class that implements it. */
const VARIANTS: Partial<Record<AuthenticatorVariant, Factory>> = {
  anonymous: (config) => new AnonymousAuthenticator(config),
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

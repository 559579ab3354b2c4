/**
 * The request parameters that carry credentials, by the configuration key that names each
 * (`auth.token.name.<key>`), with svc's default names. The core reads its own
 * configuration; the gateway and the portal strip these names from what they forward, so that a
 * page script cannot log a visitor in on the core through them. Dependency-free on purpose: the
 * client library carries this file.
 */
export const DEFAULT_CREDENTIAL_PARAMETERS = {
  client: 'clientid',
  password: 'password',
  user: 'user',
  clientcred: 'clientcred',
  token: 'token',
} as const;

const NAMES: ReadonlySet<string> = new Set(Object.values(DEFAULT_CREDENTIAL_PARAMETERS));

/** Whether a query parameter's name, decoded, is one of the default credential names in any letter case. */
export function isCredentialParameter(name: string): boolean {
  return NAMES.has(name.toLowerCase());
}

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

/** The second step of a login (SPEC 15): fixed names, stripped like the others. */
export const SECOND_FACTOR_PARAMETERS = { otp: 'otp', pending: 'pending' } as const;

/** Whether a query parameter's name, decoded, carries a credential: one of the names given. */
export type CredentialParameterTest = (name: string) => boolean;

/**
 * The test for svc's default names and `renamed`, the names an operator gave the core's
 * `auth.token.name.*` (the gateway's and the portal's `credentialParameters`), all in any letter case:
 * a renamed parameter must not pass where the default one is stripped.
 */
export function credentialParameterTest(renamed: readonly string[] = []): CredentialParameterTest {
  const names: ReadonlySet<string> = new Set([...Object.values(DEFAULT_CREDENTIAL_PARAMETERS), ...Object.values(SECOND_FACTOR_PARAMETERS), ...renamed].map((name) => name.toLowerCase()));
  return (name) => names.has(name.toLowerCase());
}

/**
 * The parameters of one POST {base}/login (seed 5.3 item 3, SPEC sections 4 and 5): `clientid`, and
 * for a client with a secret a fresh sealed `clientcred` with `user` and `password` sealed to its
 * nonce; for a client without one, `user` and `password` in plain text (TLS protects them).
 */
import { parsePrincipalName } from '../../common/src/principal-name';
import { ClientSealer } from './clientcred/sealer';
import type { ClientConfig } from './config';

/** What a connection presents at login: the seed's three connection kinds. */
export type Credentials =
  | { kind: 'anonymous' }
  /**
   * A trusted client vouches for a user it has authenticated itself (a portal): no password. `user`
   * is `contextId/uniqueId` (SPEC section 4), matched exactly in that context only.
   */
  | { kind: 'principal'; user: string }
  | { kind: 'password'; user: string; password: string };

export function checkCredentials(credentials: Credentials, config: ClientConfig): void {
  if (credentials.kind === 'anonymous') return;
  if (typeof credentials.user !== 'string' || credentials.user === '') throw new TypeError('svc client: user must be a non-empty string');
  if (credentials.kind === 'password' && (typeof credentials.password !== 'string' || credentials.password === '')) {
    throw new TypeError('svc client: password must be a non-empty string');
  }
  if (credentials.kind === 'principal' && !config.secret) {
    throw new TypeError('svc client: a client principal needs a client with a secret (SPEC section 4, client principal)');
  }
  if (credentials.kind === 'principal' && parsePrincipalName(credentials.user) === undefined) {
    throw new TypeError('svc client: a client principal is named contextId/uniqueId, e.g. employees/bob');
  }
}

/** Builds the form of one login request; every call seals afresh (a clientcred is accepted once). */
export function loginForm(config: ClientConfig, sealer: ClientSealer | undefined, credentials: Credentials): Record<string, string> {
  const form: Record<string, string> = {};
  if (config.clientId !== undefined) form.clientid = config.clientId;
  let seal = (_name: 'user' | 'password', value: string) => value;
  if (sealer) {
    const { clientcred, nonce } = sealer.sealClientCred();
    form.clientcred = clientcred;
    seal = (name, value) => sealer.sealParam(name, value, nonce);
  }
  if (credentials.kind !== 'anonymous') form.user = seal('user', credentials.user);
  if (credentials.kind === 'password') form.password = seal('password', credentials.password);
  return form;
}

/**
 * The parameters of one POST {base}/login (seed 5.3 item 3, SPEC sections 4 and 5): `clientid`, and
 * for a client with a secret a fresh sealed `clientcred` with `user` and `password` sealed to its
 * nonce; for a client without one, `user` and `password` in plain text (TLS protects them). A
 * certificate login sends neither: its certificate, in the handshake, is the credential.
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
  /**
   * `otp`: the second factor's code (SPEC 15) when the subject has one: the code itself, sent with
   * the password, or a function asked for it only when the server answers `otp_required` (a prompt).
   */
  | { kind: 'password'; user: string; password: string; otp?: string | (() => string | Promise<string>) }
  /**
   * An X.509 client certificate and its key (PEM), with the CA that signed the server's certificate
   * when it is not a public one (SPEC section 13). The certificate names its client (SAN URI
   * `urn:svc:client:<id>`) and proves it: no clientcred is sent, even for a client with a secret.
   */
  | { kind: 'certificate'; cert: string | Buffer; key: string | Buffer; ca?: string | Buffer };

const isPem = (value: unknown) => (typeof value === 'string' || Buffer.isBuffer(value)) && String(value).includes('-----BEGIN ');

export function checkCredentials(credentials: Credentials, config: ClientConfig): void {
  if (credentials.kind === 'anonymous') return;
  if (credentials.kind === 'certificate') {
    if (!isPem(credentials.cert) || !isPem(credentials.key)) throw new TypeError('svc client: a certificate connection needs cert and key in PEM');
    if (credentials.ca !== undefined && !isPem(credentials.ca)) throw new TypeError('svc client: ca must be PEM');
    if (!config.baseUrl.startsWith('https:')) throw new TypeError('svc client: a certificate connection needs an https baseUrl');
    return;
  }
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

/** The second step of a login (SPEC 15): the `pending` of the `otp_required` answer and the code. */
export interface SecondStep {
  pending: string;
  otp: string;
}

/**
 * Builds the form of one login request; every call seals afresh (a clientcred is accepted once).
 * With `second`, the form of the second step: `pending` and the code, sealed like the password.
 */
export function loginForm(config: ClientConfig, sealer: ClientSealer | undefined, credentials: Credentials, second?: SecondStep): Record<string, string> {
  const form: Record<string, string> = {};
  if (config.clientId !== undefined) form.clientid = config.clientId;
  // The TLS handshake carries the certificate; the form names at most the client (SPEC section 13).
  if (credentials.kind === 'certificate') return form;
  let seal = (_name: 'user' | 'password' | 'otp', value: string) => value;
  if (sealer) {
    const { clientcred, nonce } = sealer.sealClientCred();
    form.clientcred = clientcred;
    seal = (name, value) => sealer.sealParam(name, value, nonce);
  }
  if (second) {
    form.pending = second.pending;
    form.otp = seal('otp', second.otp);
    return form;
  }
  if (credentials.kind !== 'anonymous') form.user = seal('user', credentials.user);
  if (credentials.kind === 'password') form.password = seal('password', credentials.password);
  if (credentials.kind === 'password' && typeof credentials.otp === 'string') form.otp = seal('otp', credentials.otp);
  return form;
}

import { unixSeconds, type SealedParamName } from '../../../common/src/clientcred/format';
import type { NonceStore } from '../../../common/src/nonce-store';
import { ClientCredential, ClientCredentialRejected } from '../clientcred/client-credential';
import { deriveClientKeys } from '../clientcred/client-key';
import type { ClientConfig } from '../config/types';

/** The credential parameters of a login request, after client validation: plain text. */
export interface OpenedParams {
  user?: string;
  password?: string;
  token?: string;
  /** The second factor's code (SPEC 15). */
  otp?: string;
  /** True when the client has a secret and proved it with this request's clientcred. */
  validated: boolean;
}

export interface RawCredentialParams {
  clientcred?: string;
  user?: string;
  password?: string;
  token?: string;
  otp?: string;
}

/**
 * Client validation (SPEC section 5, seed 5.2). A client without a secret sends its parameters in
 * plain text. A client with one must send a clientcred that opens, names it, is fresh and unseen,
 * and every `user`, `password`, `token` sealed for this very request; an unsealed or misplaced value
 * fails. Every failure is ClientCredentialRejected (401 `invalid_client`) with an audit reason.
 */
export async function openCredentialParams(client: ClientConfig, raw: RawCredentialParams, now: number, nonces: NonceStore): Promise<OpenedParams> {
  if (!client.secret?.length) return { user: raw.user, password: raw.password, token: raw.token, otp: raw.otp, validated: false };
  if (raw.clientcred === undefined) throw new ClientCredentialRejected('malformed');
  const credential = await ClientCredential.open({
    clientId: client.id,
    keys: deriveClientKeys(client.secret, client.id),
    clientcred: raw.clientcred,
    now: unixSeconds(now),
    nonces,
  });
  const open = (name: SealedParamName): string | undefined => (raw[name] === undefined ? undefined : credential.openParam(name, raw[name]));
  return { user: open('user'), password: open('password'), token: open('token'), otp: open('otp'), validated: true };
}

import { ClientSealer } from '../../client/src/clientcred/sealer';
import { send, type Sent, type SendOptions } from './http';

/** POST {base}/login with plain parameters. */
export function login(base: string, params: Record<string, string>, options: Omit<SendOptions, 'form'> = {}): Promise<Sent> {
  return send(`${base}/login`, { ...options, form: params });
}

/** The parameters of one login by a client with a secret: clientcred and every credential sealed. */
export function sealedParams(sealer: ClientSealer, credentials: { user?: string; password?: string; token?: string; otp?: string }, now?: number): Record<string, string> {
  const { clientcred, nonce } = sealer.sealClientCred({ now });
  const params: Record<string, string> = { clientid: sealer.clientId, clientcred };
  for (const name of ['user', 'password', 'token', 'otp'] as const) {
    const value = credentials[name];
    if (value !== undefined) params[name] = sealer.sealParam(name, value, nonce);
  }
  return params;
}

/**
 * How the gateway logs in to a core and out again: the thin seam `CoreLogin`, so that switching to
 * the client library's `Connection` is this one file. Until that lands, `SealedCoreLogin` speaks
 * SPEC section 4's POST {base}/login itself, sealing with the client library's node-forge sealer
 * (SPEC section 5): `clientid` + `clientcred` (+ a sealed `user` for the client principal; none for
 * an anonymous visitor, which the client's Anonymous authenticator then serves).
 */
import { request, type Dispatcher } from 'undici';
import { ClientSealer } from '../../client/src/clientcred/sealer';
import { BadGateway } from '../../common/src/errors';
import { toGatewayError } from './core-errors';

export interface CoreLogin {
  /** Logs in on the core at `base` as `user` (null: anonymous visitor); resolves the `NAME=value` session cookie. */
  login(base: string, user: string | null): Promise<string>;
  /** Ends the core session named by `cookie` (best effort). */
  logout(base: string, cookie: string): Promise<void>;
}

export interface SealedCoreLoginOptions {
  clientId: string;
  secret: string;
  dispatcher: Dispatcher;
  timeoutMs: number;
}

/** The first `name=value` of a Set-Cookie header that sets a value (a cleared cookie is not a session). */
export function sessionCookieOf(setCookie: string | string[] | undefined): string | undefined {
  const values = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie];
  for (const value of values) {
    const pair = value.split(';')[0].trim();
    const eq = pair.indexOf('=');
    if (eq > 0 && eq < pair.length - 1) return pair;
  }
  return undefined;
}

export class SealedCoreLogin implements CoreLogin {
  readonly #sealer: ClientSealer;
  readonly #options: SealedCoreLoginOptions;

  constructor(options: SealedCoreLoginOptions) {
    this.#sealer = new ClientSealer(options.clientId, options.secret);
    this.#options = options;
  }

  async login(base: string, user: string | null): Promise<string> {
    const { clientcred, nonce } = this.#sealer.sealClientCred();
    const form = new URLSearchParams({ clientid: this.#options.clientId, clientcred });
    if (user !== null) form.set('user', this.#sealer.sealParam('user', user, nonce));
    const answer = await this.#post(`${base}/login`, form.toString(), undefined);
    await answer.body.dump();
    const cookie = sessionCookieOf(answer.headers['set-cookie']);
    if (answer.statusCode !== 200 || cookie === undefined) {
      throw new BadGateway('the core refused the gateway\'s login', { extensions: { coreStatus: answer.statusCode } });
    }
    return cookie;
  }

  async logout(base: string, cookie: string): Promise<void> {
    const answer = await this.#post(`${base}/logout`, '', cookie);
    await answer.body.dump();
  }

  async #post(url: string, body: string, cookie: string | undefined): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (cookie !== undefined) headers.cookie = cookie;
    const { dispatcher, timeoutMs } = this.#options;
    try {
      return await request(url, { method: 'POST', headers, body, dispatcher, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    } catch (error) {
      throw toGatewayError(error);
    }
  }
}

/**
 * How the gateway logs in to a core and out again, behind the thin seam `CoreLogin`. Logins go
 * through the client library's `Connection` (SPEC section 9: the client principal for a portal user,
 * an anonymous login of the gateway's client for a visitor; both sealed as SPEC section 5 says); the
 * gateway keeps only the session cookie and releases the connection. Logout is one POST {base}/logout.
 */
import { request, type Agent } from 'undici';
import { Connection } from '../../client/src/connection';
import { SvcClientError } from '../../client/src/errors';
import { BadGateway } from '../../common/src/errors';
import { toGatewayError } from './core-errors';

export interface CoreLogin {
  /** Logs in on the core at `base` as `user` (null: anonymous visitor); resolves the `NAME=value` session cookie. */
  login(base: string, user: string | null): Promise<string>;
  /** Ends the core session named by `cookie` (best effort). */
  logout(base: string, cookie: string): Promise<void>;
}

export interface ConnectionCoreLoginOptions {
  clientId: string;
  secret: string;
  /** The gateway's keep-alive agent to the cores (its timeouts are the core timeout). */
  dispatcher: Agent;
  /** `http.session.cookie.uniqueid` of the cores; default SVCSESSIONID. */
  cookieName?: string;
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

export class ConnectionCoreLogin implements CoreLogin {
  readonly #options: ConnectionCoreLoginOptions;
  readonly #cookieName: string;

  constructor(options: ConnectionCoreLoginOptions) {
    this.#options = options;
    this.#cookieName = options.cookieName ?? 'SVCSESSIONID';
  }

  async login(base: string, user: string | null): Promise<string> {
    const { clientId, secret, dispatcher } = this.#options;
    let connection: Connection;
    try {
      connection = await Connection.open(user === null ? { kind: 'anonymous' } : { kind: 'principal', user }, {
        config: { baseUrl: base, clientId, secret },
        dispatcher,
        cookieName: this.#cookieName,
      });
    } catch (error) {
      throw loginError(error);
    }
    const { cookie } = connection.exportSession();
    await connection.detach();
    return `${this.#cookieName}=${cookie}`;
  }

  async logout(base: string, cookie: string): Promise<void> {
    try {
      const answer = await request(`${base}/logout`, {
        method: 'POST',
        headers: { cookie, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
        dispatcher: this.#options.dispatcher,
      });
      await answer.body.dump();
    } catch (error) {
      throw toGatewayError(error);
    }
  }
}

/** A transport failure keeps its meaning (502 unreachable, 504 slow); a refusal by the core is 502. */
function loginError(error: unknown): Error {
  if (error instanceof SvcClientError && error.code !== 'transport_error') {
    return new BadGateway('the core refused the gateway\'s login', { extensions: { coreStatus: error.status, coreCode: error.code } });
  }
  return toGatewayError(error instanceof SvcClientError ? error.cause : error);
}

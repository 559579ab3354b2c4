/**
 * One HTTP hop to the core: XML bodies, the session cookie, keep-alive. Knows nothing of logins or
 * retries (connection.ts decides those). The cookie value lives only in a private field: it is never
 * logged, never put in an error, and leaves only through `sessionCookie` for a caller that persists it.
 */
import { Agent, request } from 'undici';
import { MEDIA, formatOfContentType } from '../../common/src/wire/media';
import { readProblemXml } from '../../common/src/wire/problem-xml';
import { parseXml, toXml, type WireDocument } from '../../common/src/wire/xml';
import { clientFailure } from './errors';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface WireRequest {
  method: Method;
  /** Relative to `{base}`, starting with `/`; path segments already encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** Sent as application/xml. */
  body?: WireDocument;
  /** Sent as application/x-www-form-urlencoded (login, logout). */
  form?: Record<string, string>;
  headers?: Record<string, string>;
  /** A login: send no cookie, and the answer's cookie becomes the session whatever else happened meanwhile. */
  fresh?: boolean;
  /** A media type (text/csv) whose answer is handed over unread as `WireResponse.stream`; anything else is decoded as usual. */
  stream?: string;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed body (XML, or JSON from a server that ignored Accept); undefined when empty. */
  document?: WireDocument;
  /** The session cookie the request carried (compare with the current one before logging in again). */
  sentCookie?: string;
  /** The answer set a session cookie other than the one sent: the server made a new session. */
  cookieReplaced: boolean;
  /** The body, unread, when the request asked for `stream` and the answer is of that type. */
  stream?: AsyncIterable<Buffer>;
}

export interface TransportOptions {
  /** `http.session.cookie.uniqueid` of the server; default SVCSESSIONID. */
  cookieName?: string;
  /** Per request, for the headers and for the body; default 30 s. */
  timeoutMs?: number;
  /** A dispatcher to share (e.g. one Agent for many connections); closed by its owner, not here. */
  dispatcher?: Agent;
  /**
   * TLS to the core: `ca` to trust a private CA's server certificate, `cert` and `key` to present a
   * client certificate (a certificate connection sets them). Ignored with a `dispatcher`.
   */
  tls?: { ca?: string | Buffer; cert?: string | Buffer; key?: string | Buffer };
}

export class HttpTransport {
  readonly baseUrl: string;
  readonly #cookieName: string;
  readonly #agent: Agent;
  readonly #ownsAgent: boolean;
  #cookie: string | undefined;
  #closed = false;

  constructor(baseUrl: string, options: TransportOptions = {}) {
    this.baseUrl = baseUrl;
    this.#cookieName = options.cookieName ?? 'SVCSESSIONID';
    const timeout = options.timeoutMs ?? 30_000;
    // undici keeps connections alive; 30 s stays under the core's 65 s keepAliveTimeout, so the
    // client, not the server, closes an idle socket and no request races a server-side close.
    this.#agent = options.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, headersTimeout: timeout, bodyTimeout: timeout, ...(options.tls ? { connect: { ...options.tls } } : {}) });
    this.#ownsAgent = options.dispatcher === undefined;
  }

  /** The current session cookie value, for a caller that stores the session (the CLI). */
  get sessionCookie(): string | undefined {
    return this.#cookie;
  }

  set sessionCookie(value: string | undefined) {
    this.#cookie = value;
  }

  async send(req: WireRequest): Promise<WireResponse> {
    const url = new URL(this.baseUrl + req.path);
    for (const [name, value] of Object.entries(req.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { accept: `${MEDIA.xml}, ${MEDIA.problemXml}`, ...req.headers };
    let body: string | undefined;
    if (req.body) {
      headers['content-type'] = MEDIA.xml;
      body = toXml(req.body);
    } else if (req.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(req.form).toString();
    }
    const sentCookie = req.fresh ? undefined : this.#cookie;
    if (sentCookie !== undefined) headers.cookie = `${this.#cookieName}=${sentCookie}`;
    let answer: Awaited<ReturnType<typeof request>>;
    let text: string;
    const type = () => {
      const value = answer.headers['content-type'];
      return Array.isArray(value) ? value[0] : value;
    };
    try {
      answer = await request(url, { method: req.method, headers, body, dispatcher: this.#agent });
      if (req.stream !== undefined && (type() ?? '').split(';')[0].trim().toLowerCase() === req.stream) {
        const cookieReplaced = this.#takeCookie(answer.headers['set-cookie'], sentCookie, req.fresh === true);
        return { status: answer.statusCode, headers: answer.headers, sentCookie, cookieReplaced, stream: answer.body };
      }
      text = await answer.body.text();
    } catch (error) {
      throw clientFailure('transport_error', `${req.method} ${url.origin}${url.pathname}: ${(error as Error).message}`, 0, error);
    }
    const cookieReplaced = this.#takeCookie(answer.headers['set-cookie'], sentCookie, req.fresh === true);
    const document = decodeBody(text, type(), answer.statusCode);
    return { status: answer.statusCode, headers: answer.headers, document, sentCookie, cookieReplaced };
  }

  /** Idempotent: a connection closed twice (close after detach, a finally) must not throw. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsAgent) await this.#agent.close();
  }

  /**
   * Adopts the session cookie of a Set-Cookie header (a cleared one, Max-Age=0 or empty, drops ours),
   * but only when the request carried the current cookie: a late answer to a request sent with an
   * ended session must not overwrite the session a login has made meanwhile.
   */
  #takeCookie(header: string | string[] | undefined, sentCookie: string | undefined, fresh: boolean): boolean {
    const prefix = `${this.#cookieName}=`;
    const line = (Array.isArray(header) ? header : header ? [header] : []).filter((h) => h.startsWith(prefix)).pop();
    if (line === undefined) return false;
    const [pair, ...attributes] = line.split(';');
    const value = pair.slice(prefix.length).trim();
    const cleared = value === '' || attributes.some((a) => /^\s*max-age\s*=\s*0\s*$/i.test(a));
    if (fresh || this.#cookie === sentCookie) this.#cookie = cleared ? undefined : value;
    return !cleared && sentCookie !== undefined && sentCookie !== value;
  }
}

const isProblemXml = (contentType: string | undefined) => (contentType ?? '').split(';')[0].trim().toLowerCase() === MEDIA.problemXml;

function decodeBody(text: string, contentType: string | undefined, status: number): WireDocument | undefined {
  if (text.trim() === '') return undefined;
  const format = formatOfContentType(contentType);
  try {
    // A problem in RFC 9457's XML format, or in the REST mapping servers before it answered.
    if (format === 'xml' && isProblemXml(contentType)) return readProblemXml(text);
    if (format === 'xml') return parseXml(text);
    if (format === 'json') return JSON.parse(text) as WireDocument;
  } catch (error) {
    throw clientFailure('bad_response', `unreadable ${format} body (${(error as Error).message})`, status, error);
  }
  // HTML or plain text (a proxy's error page): say so instead of guessing at its meaning.
  throw clientFailure('bad_response', `unexpected ${contentType ?? 'untyped'} body with status ${status}`, status);
}

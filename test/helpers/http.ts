/** Small fetch wrappers for suites that talk to a real server: no redirects followed, cookies by hand. */
export interface Sent {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: Record<string, unknown> | undefined;
  /** The value set for the session cookie by this answer ('' when it was cleared), if any. */
  cookie: string | undefined;
}

export interface SendOptions {
  method?: string;
  cookie?: string;
  headers?: Record<string, string>;
  /** Form-encoded parameters (a string is sent as it is, for repeated parameters). */
  form?: Record<string, string> | string;
  json?: unknown;
}

export const COOKIE = 'SVCSESSIONID';

export async function send(url: string, options: SendOptions = {}): Promise<Sent> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.cookie !== undefined) headers.cookie = `${COOKIE}=${options.cookie}`;
  let body: string | undefined;
  if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = typeof options.form === 'string' ? options.form : new URLSearchParams(options.form).toString();
  } else if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  const response = await fetch(url, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json, cookie: cookieOf(response.headers) };
}

/** The last value the answer set for the session cookie. */
export function cookieOf(headers: Headers): string | undefined {
  let value: string | undefined;
  for (const line of headers.getSetCookie()) {
    const match = new RegExp(`^${COOKIE}=([^;]*)`).exec(line);
    if (match) value = match[1];
  }
  return value;
}

/** The `session` member of a session-structure answer. */
export function sessionOf(sent: Sent): Record<string, unknown> {
  const session = sent.json?.session;
  if (!session || typeof session !== 'object') throw new Error(`no session in ${sent.status} ${sent.text}`);
  return session as Record<string, unknown>;
}

import http from 'node:http';
import https from 'node:https';
import { COOKIE } from './http';

export interface RawSent {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: Record<string, unknown> | undefined;
  /** The session cookie this answer set, if any. */
  cookie: string | undefined;
}

export interface RawOptions {
  method?: string;
  form?: Record<string, string>;
  cookie?: string;
  headers?: Record<string, string>;
  /** TLS: the CA of the server's certificate, and a client certificate to present. */
  ca?: string;
  cert?: string;
  key?: string;
  /**
   * Another loopback address as the peer the server sees (127.0.0.2): every 127/8 address reaches a
   * server listening on 127.0.0.1, so it meets another visitor without any proxy header.
   */
  localAddress?: string;
}

/**
 * One request on a fresh connection (no agent: a TLS session is never reused, so every request makes
 * its own handshake with its own client certificate), over http or https by the URL.
 */
export function rawSend(url: string, options: RawOptions = {}): Promise<RawSent> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.cookie !== undefined) headers.cookie = `${COOKIE}=${options.cookie}`;
  const body = options.form ? new URLSearchParams(options.form).toString() : undefined;
  if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  const target = new URL(url);
  const common = { method, headers, agent: false as const, localAddress: options.localAddress };
  return new Promise((resolve, reject) => {
    const onResponse = (res: http.IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        let json: Record<string, unknown> | undefined;
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          json = undefined;
        }
        const line = (res.headers['set-cookie'] ?? []).filter((c) => c.startsWith(`${COOKIE}=`)).pop();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json, cookie: line ? /^[^=]+=([^;]*)/.exec(line)![1] : undefined });
      });
    };
    const req =
      target.protocol === 'https:'
        ? https.request(target, { ...common, ca: options.ca, cert: options.cert, key: options.key }, onResponse)
        : http.request(target, common, onResponse);
    req.on('error', reject);
    req.end(body);
  });
}

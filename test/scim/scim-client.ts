/** A SCIM client for the suites: the demo's provisioning tokens (test credentials), JSON in and out. */
import { TEST_CREDENTIALS, startTestServer, type TestServer, type TestServerOptions } from '../helpers/core-server';

export interface ScimAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown> | undefined;
  text: string;
}

export const SCIM_TOKENS = TEST_CREDENTIALS.scim;

export interface ScimClient {
  root: string;
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ScimAnswer>;
}

export function scimClient(server: TestServer, context: 'employees' | 'customers' = 'employees', token: string | undefined = SCIM_TOKENS[`scim-${context}`]): ScimClient {
  const root = `${server.baseUrl}/scim/v2/${context}`;
  return {
    root,
    async request(method, path, body, headers = {}) {
      const response = await fetch(`${root}${path}`, {
        method,
        headers: {
          accept: 'application/scim+json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      let parsed: Record<string, unknown> | undefined;
      try {
        parsed = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
  };
}

/** A core seeded like the demo, its SCIM service subjects included. */
export function startScimServer(options: TestServerOptions = {}): Promise<TestServer> {
  return startTestServer({ provisioners: true, ...options });
}

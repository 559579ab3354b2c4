import http from 'node:http';
import pino from 'pino';
import { signPrincipalAssertion, type PrincipalName } from '../../common/src/assertion/principal-assertion';
import { buildGatewayConfig, type GatewayConfig } from '../../gateway/src/config';
import { startGateway, type GatewayOptions, type RunningGateway } from '../../gateway/src/index';
import { TEST_CREDENTIALS, startTestServer, type TestServer, type TestServerOptions } from '../helpers/core-server';

export const PORTAL = 'demo-portal';
export const PORTAL_SECRET = TEST_CREDENTIALS.portals[PORTAL];

/** A subject of the test configuration's `employees` context, as an assertion names it. */
export const employee = (uniqueId: string): PrincipalName => ({ contextId: 'employees', uniqueId });

/** The `gateway` section of a test configuration: on an ephemeral port at `/gw`, for `cores`, with the test credentials. */
export function testGatewaySection(cores: string[]): Record<string, unknown> {
  return {
    host: '127.0.0.1',
    port: 0,
    root: '/gw',
    cores,
    clientId: 'portal-gateway',
    secret: TEST_CREDENTIALS.clients['portal-gateway'],
    portals: [{ id: PORTAL, secret: PORTAL_SECRET }],
  };
}

export function gatewayConfig(cores: string[], overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return buildGatewayConfig({ gateway: { ...testGatewaySection(cores), probeIntervalMs: 50, ...overrides } });
}

export function startTestGateway(cores: string[], overrides: Partial<GatewayConfig> = {}, options: GatewayOptions = {}): Promise<RunningGateway> {
  return startGateway(gatewayConfig(cores, overrides), { logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }), defaultMetrics: false, ...options });
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

export interface SendOptions {
  method?: string;
  /** null: an anonymous visitor; undefined with `assertion: false`: no header at all. */
  user?: PrincipalName | null;
  visitor?: string;
  /** The visitor's address as the portal saw it (default: unknown). */
  address?: string | null;
  headers?: Record<string, string>;
  body?: string;
  /** false: no assertion; a string: this header value as is. */
  assertion?: false | string;
  /** A visitor's `X-Svc-Visitor-State`, as the portal sends back the newest one the gateway gave. */
  visitorState?: string;
  now?: number;
}

/** One request with the exact raw path (node:http does not normalise it), signed as the demo portal. */
export function send(gateway: RunningGateway, pathAndQuery: string, options: SendOptions = {}): Promise<Answer> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.assertion === undefined) {
    headers['x-svc-principal'] = signPrincipalAssertion({
      portalId: PORTAL,
      secret: PORTAL_SECRET,
      user: options.user === undefined ? employee('alice') : options.user,
      visitor: options.visitor ?? 'portal-session-1',
      address: options.address ?? null,
      method,
      pathAndQuery,
      now: options.now,
    });
  } else if (options.assertion !== false) headers['x-svc-principal'] = options.assertion;
  if (options.visitorState !== undefined) headers['x-svc-visitor-state'] = options.visitorState;
  if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
  const url = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path: pathAndQuery, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: <T>() => JSON.parse(text) as T });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * A visitor as the portal keeps one: its handle and the newest `X-Svc-Visitor-State` the gateway
 * gave it, sent back on each request (SPEC section 9).
 */
export class CarriedVisitor {
  state: string | undefined;
  constructor(
    readonly handle: string,
    readonly address: string | null = null,
  ) {}

  async send(gateway: RunningGateway, pathAndQuery: string, options: Omit<SendOptions, 'user' | 'visitor' | 'visitorState'> = {}): Promise<Answer> {
    const answer = await send(gateway, pathAndQuery, { address: this.address, ...options, user: null, visitor: this.handle, visitorState: this.state });
    const state = answer.headers['x-svc-visitor-state'];
    if (typeof state === 'string') this.state = state;
    return answer;
  }
}

/** Requests the core has answered so far (its request histogram's count). */
export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

function asSeen(req: http.IncomingMessage): SeenRequest {
  return { method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers } };
}

/** Every request the core receives from now on, as it arrived (method, raw URL, headers). */
export function recordCoreRequests(server: TestServer): SeenRequest[] {
  const seen: SeenRequest[] = [];
  // Before express's own listener, which rewrites req.url while routing.
  server.server.prependListener('request', (req: http.IncomingMessage) => seen.push(asSeen(req)));
  return seen;
}

/**
 * The requests the core receives while `act` runs, by arrival. (Counting the core's request metric
 * instead raced: an earlier request's metric is recorded when its answer finishes, which can come
 * after the caller has already read that answer.)
 */
export async function coreRequestsDuring<T>(server: TestServer, act: () => Promise<T>): Promise<{ result: T; seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const listener = (req: http.IncomingMessage) => seen.push(asSeen(req));
  server.server.prependListener('request', listener);
  try {
    return { result: await act(), seen };
  } finally {
    server.server.off('request', listener);
  }
}

/** `POST {gw}/api/login` for a visitor (the assertion names no user) with an svc name and password. */
export function portalLogin(gateway: RunningGateway, user: string, password: string, options: Omit<SendOptions, 'user' | 'body' | 'method'> = {}): Promise<Answer> {
  return send(gateway, '/gw/api/login', {
    ...options,
    user: null,
    method: 'POST',
    body: JSON.stringify({ user, password }),
    headers: { 'content-type': 'application/json', ...options.headers },
  });
}

export interface CoreAndGateway {
  core: TestServer;
  gateway: RunningGateway;
  /** Every request the core receives (recordCoreRequests). */
  seen: SeenRequest[];
}

/** A real core, seeded like the demo, and a gateway in front of it. */
export async function startCoreAndGateway(options: { core?: TestServerOptions; gateway?: Partial<GatewayConfig>; gatewayOptions?: GatewayOptions } = {}): Promise<CoreAndGateway> {
  const core = await startTestServer(options.core);
  const seen = recordCoreRequests(core);
  return { core, seen, gateway: await startTestGateway([core.baseUrl], options.gateway, options.gatewayOptions) };
}

export async function stopCoreAndGateway(started: Partial<CoreAndGateway>): Promise<void> {
  await started.gateway?.close();
  await started.core?.stop();
}

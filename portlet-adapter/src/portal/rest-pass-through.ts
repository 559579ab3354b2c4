/**
 * The REST pass-through (SPEC 10.3, beyond the seed): `{portal}/api/…` forwards a page script's call
 * to `{gw}/api/…` as the current portal session (the user, or the visitor), with a fresh assertion
 * signed over the gateway path and query as sent. The request's headers are an allow-list (the
 * portal's cookies, `Authorization`, `X-Svc-Principal`, `X-Forwarded-*`, `Origin`, `Expect` and
 * every other header never pass) and credential parameters are dropped; a visitor's
 * `X-Svc-Visitor-State` is the one its cookie carries (the browser's own is dropped with the rest)
 * and never comes back (SPEC 9: browsers never send or see it); `Set-Cookie` never comes back, a
 * `Location` is rewritten to `{portal}/api/…`, answers carry `nosniff`; a method other than
 * GET/HEAD needs `X-Requested-With` and a same-origin `Origin` (a cross-site form cannot send the
 * one, a cross-site script cannot fake the other).
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { BadGateway, Forbidden, NotFound } from '../../../common/src/errors';
import { problemDetails } from '../../../common/src/problem';
import { credentialParameterTest } from '../../../common/src/wire/credential-parameters';
import { ASSERTION_HEADER, VISITOR_STATE_HEADER, type GatewayPrincipal } from '../gateway-client';
import type { PortalDeps } from './deps';
import { addressOf } from './identity';
import { dropUserInfoOnWrite } from './user-info';

/**
 * The browser's request headers that reach the gateway (those the gateway passes to the core, and
 * the body's length); every other header is dropped. `Transfer-Encoding` is node's to choose.
 */
const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'content-type', 'content-length', 'if-match', 'if-none-match', 'x-operation', 'x-request-id', 'user-agent'];

/** What the gateway receives: the allow-listed headers of the browser's request, then the portal's own (a visitor's state from its cookie). */
function outgoingHeaders(incoming: IncomingHttpHeaders, assertion: string, visitorState: string | undefined): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (const name of FORWARDED_REQUEST_HEADERS) if (incoming[name] !== undefined) headers[name] = incoming[name];
  headers[ASSERTION_HEADER.toLowerCase()] = assertion;
  if (visitorState !== undefined) headers[VISITOR_STATE_HEADER.toLowerCase()] = visitorState;
  return headers;
}

interface Forwarding {
  gateway: { index: number; base: string };
  /** Path and query under the gateway's origin, as sent. */
  path: string;
  assertion: string;
  /** The path under `{gw}/api` (no query): a successful write to a subject drops its USER_INFO. */
  apiPath: string;
  /** Whom the request was asserted for: a `session_revoked` answer for a user ends that portal session. */
  principal: GatewayPrincipal;
}

export function restPassThrough(deps: PortalDeps): RequestHandler {
  const isCredentialParameter = credentialParameterTest(deps.config.credentialParameters);
  const forwarding = new WeakMap<IncomingMessage, Forwarding>();
  const written = dropUserInfoOnWrite(deps.sessions);
  const proxy = createProxyMiddleware<Request, Response>({
    changeOrigin: true,
    xfwd: false,
    router: (req) => new URL(forwarding.get(req)!.gateway.base).origin,
    pathRewrite: (_path, req) => forwarding.get(req)!.path,
    on: {
      proxyRes: (proxyRes: IncomingMessage, req: Request) => {
        delete proxyRes.headers['set-cookie'];
        delete proxyRes.headers[VISITOR_STATE_HEADER.toLowerCase()];
        proxyRes.headers['x-content-type-options'] = 'nosniff';
        const sent = forwarding.get(req);
        const location = sent && portalLocation(deps.config.root, sent.gateway.base, proxyRes.headers.location);
        if (location === undefined) delete proxyRes.headers.location;
        else proxyRes.headers.location = location;
        if (sent && req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS' && (proxyRes.statusCode ?? 500) < 400) written(sent.apiPath);
        if (sent?.principal.user && proxyRes.statusCode === 401 && /error="session_revoked"/.test(String(proxyRes.headers['www-authenticate'] ?? ''))) deps.gateway.sessionRevoked(sent.principal);
      },
      error: (_error, req, res) => {
        const sent = forwarding.get(req as Request);
        if (sent) deps.gateway.markUnreachable(sent.gateway.index);
        const response = res as Response;
        if (!response.headersSent && typeof response.status === 'function') {
          const { status, body } = problemDetails(new BadGateway('The service is unavailable; try again.'));
          response.status(status).type('application/problem+json').send(JSON.stringify(body));
        } else (res as { destroy?: () => void }).destroy?.();
      },
    },
  });
  return (req, res, next) => {
    res.locals.route = 'api';
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.method !== 'GET' && req.method !== 'HEAD' && (req.headers['x-requested-with'] === undefined || !sameOrigin(deps, req))) {
      return next(new Forbidden('A call that changes something needs X-Requested-With and a same-origin Origin.'));
    }
    const identity = deps.identities.of(req, res);
    let gateway;
    try {
      gateway = deps.gateway.nextGateway();
    } catch (error) {
      return next(new BadGateway('The service is unavailable; try again.', { cause: error }));
    }
    const original = new URL(req.originalUrl, 'http://portal');
    // After URL normalisation (`..`, `%2e%2e`) the path must still be under {root}/api.
    if (!original.pathname.startsWith(`${deps.config.root}/api/`)) return next(new NotFound('There is no such resource.'));
    const query = new URLSearchParams();
    for (const [name, value] of original.searchParams) if (!isCredentialParameter(name)) query.append(name, value);
    const rest = original.pathname.slice(`${deps.config.root}/api`.length);
    const target = new URL(gateway.base);
    const search = query.toString();
    const path = `${target.pathname}/api${rest}${search ? `?${search}` : ''}`;
    const principal = deps.identities.principalOf(identity, addressOf(req));
    const assertion = deps.gateway.assertion(principal, req.method, path);
    forwarding.set(req, { gateway, path, assertion, apiPath: rest, principal });
    // http-proxy copies the request's headers into the outgoing request before any hook runs, and
    // with `Expect: 100-continue` node sends them at once, before a proxyReq hook could remove one:
    // so the request's headers become the allow-list here, and nothing else can reach the gateway.
    req.headers = outgoingHeaders(req.headers, assertion, principal.state?.value);
    void proxy(req, res, next);
  };
}

/**
 * The gateway's `Location` as the browser must follow it: `{gw}/api/X` (absolute or not) becomes
 * `{root}/api/X`; anything else (another origin, a path outside the gateway's API) is not passed.
 */
function portalLocation(root: string, gatewayBase: string, location: string | undefined): string | undefined {
  if (location === undefined) return undefined;
  const base = new URL(gatewayBase);
  const prefix = `${base.pathname.replace(/\/$/, '')}/api`;
  let url: URL;
  try {
    url = new URL(location, `${base.origin}${prefix}/`);
  } catch {
    return undefined;
  }
  if (url.origin !== base.origin || !url.pathname.startsWith(`${prefix}/`)) return undefined;
  return `${root}/api${url.pathname.slice(prefix.length)}${url.search}`;
}

function sameOrigin(deps: PortalDeps, req: Request): boolean {
  return req.headers.origin === deps.publicOrigin();
}

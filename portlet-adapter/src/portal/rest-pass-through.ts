/**
 * The REST pass-through (SPEC 10.3, beyond the seed): `{portal}/api/…` forwards a page script's call
 * to `{gw}/api/…` as the current portal session (the user, or the visitor), with a fresh assertion
 * signed over the gateway path and query as sent. The portal's cookies, `Authorization`,
 * `X-Svc-Principal` and credential parameters never pass; `Set-Cookie` never comes back; a method
 * other than GET/HEAD needs `X-Requested-With` and a same-origin `Origin` (a cross-site form cannot
 * send the one, a cross-site script cannot fake the other).
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { BadGateway, Forbidden, NotFound } from '../../../common/src/errors';
import { ASSERTION_HEADER } from '../gateway-client';
import type { PortalDeps } from './deps';
import { addressOf } from './identity';
import { dropUserInfoOnWrite } from './user-info';

const CREDENTIAL_PARAMETERS = new Set(['clientid', 'clientcred', 'user', 'password', 'token']);
const DROPPED_HEADERS = ['cookie', 'authorization', ASSERTION_HEADER.toLowerCase(), 'forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-requested-with', 'origin', 'referer'];

interface Forwarding {
  gateway: { index: number; base: string };
  /** Path and query under the gateway's origin, as sent. */
  path: string;
  assertion: string;
  /** The path under `{gw}/api` (no query): a successful write to a subject drops its USER_INFO. */
  apiPath: string;
}

export function restPassThrough(deps: PortalDeps): RequestHandler {
  const forwarding = new WeakMap<IncomingMessage, Forwarding>();
  const written = dropUserInfoOnWrite(deps.sessions);
  const proxy = createProxyMiddleware<Request, Response>({
    changeOrigin: true,
    xfwd: false,
    router: (req) => new URL(forwarding.get(req)!.gateway.base).origin,
    pathRewrite: (_path, req) => forwarding.get(req)!.path,
    on: {
      proxyReq: (proxyReq: ClientRequest, req: Request) => {
        for (const name of DROPPED_HEADERS) proxyReq.removeHeader(name);
        proxyReq.setHeader(ASSERTION_HEADER, forwarding.get(req)!.assertion);
      },
      proxyRes: (proxyRes: IncomingMessage, req: Request) => {
        delete proxyRes.headers['set-cookie'];
        const sent = forwarding.get(req);
        if (sent && req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS' && (proxyRes.statusCode ?? 500) < 400) written(sent.apiPath);
      },
      error: (_error, req, res) => {
        const sent = forwarding.get(req as Request);
        if (sent) deps.gateway.markUnreachable(sent.gateway.index);
        const response = res as Response;
        if (!response.headersSent && typeof response.status === 'function') {
          response.status(502).type('application/problem+json').send(JSON.stringify({ type: 'urn:svc:problem:bad_gateway', title: 'Bad gateway', status: 502, code: 'bad_gateway', detail: 'The service is unavailable; try again.' }));
        } else (res as { destroy?: () => void }).destroy?.();
      },
    },
  });
  return (req, res, next) => {
    res.locals.route = 'api';
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
    for (const [name, value] of original.searchParams) if (!CREDENTIAL_PARAMETERS.has(name.toLowerCase())) query.append(name, value);
    const rest = original.pathname.slice(`${deps.config.root}/api`.length);
    const target = new URL(gateway.base);
    const search = query.toString();
    const path = `${target.pathname}/api${rest}${search ? `?${search}` : ''}`;
    const assertion = deps.gateway.assertion(deps.identities.principalOf(identity, addressOf(req)), req.method, path);
    forwarding.set(req, { gateway, path, assertion, apiPath: rest });
    void proxy(req, res, next);
  };
}

function sameOrigin(deps: PortalDeps, req: Request): boolean {
  return req.headers.origin === deps.publicOrigin();
}

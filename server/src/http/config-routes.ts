import { Router, type Request, type Response } from 'express';
import { InvalidRequest, MethodNotAllowed, NotFound, SvcError } from '../../../common/src/errors';
import type { WireDocument } from '../../../common/src/wire/xml';
import type { Core } from '../core';
import { authorize } from './authorize';
import { rawBody } from './body';
import { sendDocument } from './respond';

export type ReloadResult = { ok: true } | { ok: false; problems: string[] };

/**
 * How to reload, per core: only the process that read a configuration file knows its path
 * (bin/svc.ts, through RunningServer.reload); a demo or test server has none.
 */
const reloaders = new WeakMap<Core, () => ReloadResult>();

export function registerConfigReload(core: Core, reload: () => ReloadResult): void {
  reloaders.set(core, reload);
}

/** The running configuration as SYSTEM may see it: no secret, no hash, no authenticator options. */
function configView(core: Core): Record<string, unknown> {
  const c = core.config;
  return {
    clients: c.clients.map((client) => ({
      id: client.id,
      authenticators: client.authenticators,
      contexts: client.contexts,
      defaultContext: client.defaultContext,
      allowPrincipalAssertion: Boolean(client.allowPrincipalAssertion),
      hasSecret: Boolean(client.secret?.length),
    })),
    contexts: c.contexts.map((context) => ({
      id: context.id,
      store: context.store,
      registration: context.registration.enabled,
      forgottenPassword: context.forgottenPassword.enabled,
      searchAttributes: context.searchAttributes,
    })),
    // Variant options can hold introspection credentials, so only the identity is listed.
    authenticators: c.authenticators.map((a) => ({ id: a.id, kind: a.kind, variant: a.variant, sessionType: a.sessionType, context: a.context ?? null })),
    policies: c.policies,
    reservedIds: c.reservedIds,
    system: c.system ? { userId: c.system.userId } : null,
  };
}

/**
 * `{base}/config` (seed 4.4: SYSTEM sessions only), as JSON. Every path under it is authorized on
 * the target `config` before anything else, so a route added here later is guarded as well, and
 * the PDP's fixed rule keeps it SYSTEM-only whatever the configured policies say.
 */
export function configRoutes(core: Core): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.use(['/config', '/config/*rest'], async (req, _res, next) => {
    await authorize(core, req.svc, req.method === 'GET' || req.method === 'HEAD' ? 'READ' : 'UPDATE', 'config');
    next();
  });

  router.get('/config', (req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-store');
    sendDocument(req, res, 200, { config: configView(core) } as unknown as WireDocument);
  });

  router.post('/config/reload', rawBody(1024), (req: Request, res: Response) => {
    const reload = reloaders.get(core);
    if (!reload) throw new SvcError(409, 'reload_unavailable', 'Reload unavailable', { detail: 'this server runs without a configuration file' });
    const result = reload();
    if (!result.ok) {
      throw new InvalidRequest('the configuration file was refused; the running configuration stays', {
        errors: result.problems.map((message) => ({ path: 'config', message })),
      });
    }
    sendDocument(req, res, 200, { reload: { ok: true } } as unknown as WireDocument);
  });

  router.all('/config', (_req, res) => {
    res.setHeader('Allow', 'GET, HEAD');
    throw new MethodNotAllowed('the config area is read with GET');
  });
  router.all('/config/reload', (_req, res) => {
    res.setHeader('Allow', 'POST');
    throw new MethodNotAllowed('reload is POSTed');
  });
  router.all('/config/*rest', () => {
    throw new NotFound('no such configuration resource');
  });
  return router;
}

import { Router } from 'express';
import type { Registry } from 'prom-client';

/** `/health`, `/ready`, `/metrics` at a process's own root: no session, no context root. */
export function opsRouter(options: { ready: () => Promise<boolean>; registry: Registry }): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/ready', async (_req, res) => {
    const ready = await options.ready().catch(() => false);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable' });
  });
  router.get('/metrics', async (_req, res) => {
    res.type(options.registry.contentType).send(await options.registry.metrics());
  });
  return router;
}

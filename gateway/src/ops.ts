import { Router } from 'express';
import type { Registry } from 'prom-client';

/** `/health` (liveness), `/ready` (a core is taking requests), `/metrics` at the gateway's root; no assertion. */
export function opsRouter(options: { ready: () => boolean; registry: Registry }): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/ready', (_req, res) => {
    const ready = options.ready();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable' });
  });
  router.get('/metrics', async (_req, res) => {
    res.type(options.registry.contentType).send(await options.registry.metrics());
  });
  return router;
}

import type { RequestHandler } from 'express';
import type { Registry } from 'prom-client';

/** What `/ready` reports: ready or not, and optionally each thing checked (`{"postgres":"down"}`). */
export type Readiness = boolean | { ready: boolean; checks: Record<string, 'up' | 'down'> };

/**
 * `/health` (liveness), `/ready` (what the process needs answers), `/metrics` (Prometheus) at each
 * process's own root: no session, no assertion, no context root. One middleware with a switch rather
 * than a router, since every request of the process passes here.
 */
export function opsRouter(options: { ready: () => Promise<Readiness> | Readiness; registry: Registry }): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    switch (req.path) {
      case '/health':
        res.json({ status: 'ok' });
        return undefined;
      case '/ready':
        void Promise.resolve(options.ready()).then(
          (readiness) => {
            const ready = typeof readiness === 'boolean' ? readiness : readiness.ready;
            const checks = typeof readiness === 'boolean' ? {} : { checks: readiness.checks };
            res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', ...checks });
          },
          () => res.status(503).json({ status: 'unavailable' }),
        );
        return undefined;
      case '/metrics':
        void options.registry.metrics().then((text) => res.type(options.registry.contentType).send(text), next);
        return undefined;
      default:
        return next();
    }
  };
}

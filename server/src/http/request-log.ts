import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Logger } from '../../../common/src/log';
import { logsRequest, type LogSettings } from '../../../common/src/request-log-settings';
import type { Metrics } from '../metrics';
import type { RequestState } from './request-state';

/**
 * One JSON log line per request with a request id (also answered as `X-Request-Id`). The query
 * string is left out: it may carry a token or a check's parameters that are nobody's business.
 * `route` is the matched route's template (route-table.ts), so the histogram has
 * one series per route rather than one per subject. `settings` (the configuration's `log`, read per
 * request so that a reload applies) says which requests get their line; every one is measured.
 */
export function requestLog(log: Logger, metrics: Metrics, settings: () => LogSettings): (req: Request, res: Response) => RequestState {
  // The line is built here from fixed fields, none of which can name a secret (the query string is
  // left out), so it skips the redaction walk, which cost as much as writing the line.
  const lines = log.child({}, { redact: { paths: [] } });
  return (req, res) => {
    const started = process.hrtime.bigint();
    const id = randomUUID();
    // Its session and peer are the authenticate step's; until then (and for a path outside the context root), none.
    const state = { id } as RequestState;
    res.setHeader('X-Request-Id', id);
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      metrics.requests.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      if (!logsRequest(settings(), res.statusCode)) return;
      lines.info(
        { reqId: id, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(seconds * 1e5) / 100, session: state.session?.handle, peer: state.peer },
        'request',
      );
    });
    return state;
  };
}

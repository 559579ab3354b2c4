import type { Request, Response } from 'express';

const METHODS = 'GET, HEAD, POST, PUT, DELETE, OPTIONS';
const HEADERS = 'Content-Type, Accept, If-Match, If-None-Match, X-Operation';
const EXPOSED = 'ETag, Location, X-Svc-Decision, WWW-Authenticate, X-Request-Id, Retry-After, Allow';

/**
 * CORS, off unless `server.corsOrigins` lists origins (SPEC section 1). Only listed origins get the
 * headers, with credentials (the session cookie), and `Vary: Origin` so caches keep answers apart.
 * A preflight (OPTIONS with Access-Control-Request-Method) is answered here (true: nothing more to
 * do); a plain OPTIONS goes on to the REST router, which answers with the methods this principal
 * may use.
 */
export function cors(origins: () => readonly string[]): (req: Request, res: Response) => boolean {
  return (req, res) => {
    const allowed = origins();
    const origin = req.headers.origin;
    if (allowed.length === 0 || origin === undefined) return false;
    res.append('Vary', 'Origin');
    if (!allowed.includes(origin)) return false;
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Access-Control-Expose-Headers', EXPOSED);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      res.setHeader('Access-Control-Allow-Methods', METHODS);
      res.setHeader('Access-Control-Allow-Headers', HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      res.statusCode = 204;
      res.end();
      return true;
    }
    return false;
  };
}

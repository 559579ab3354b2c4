import type { Request } from 'express';
import { mac, sameMac } from './keys';

/**
 * Cross-site posts are refused twice (SPEC 10.2): the session's CSRF token in the action URL (or a
 * form's `_csrf`), derived from the session's handle with the portal's key (nothing stored), and an
 * `Origin` (or, without one, `Referer`) of `publicOrigin`. Pages send `Referrer-Policy: same-origin`,
 * so the token never leaves the origin.
 */
export class Csrf {
  constructor(
    private readonly key: Buffer,
    private readonly publicOrigin: () => string,
  ) {}

  tokenFor(handle: string): string {
    return mac(this.key, `csrf|${handle}`).toString('base64url');
  }

  /** The token is the handle's and the request comes from the portal's own origin. */
  accepts(req: Request, handle: string, token: unknown): boolean {
    return typeof token === 'string' && token.length <= 64 && sameMac(mac(this.key, `csrf|${handle}`), token) && this.sameOrigin(req);
  }

  sameOrigin(req: Request): boolean {
    const origin = req.headers.origin;
    if (typeof origin === 'string') return origin === this.publicOrigin();
    const referer = req.headers.referer;
    if (typeof referer !== 'string') return false;
    try {
      return new URL(referer).origin === this.publicOrigin();
    } catch {
      return false;
    }
  }
}

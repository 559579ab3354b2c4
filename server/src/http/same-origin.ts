import { Forbidden } from '../../../common/src/errors';
import { step } from './exchange';

/**
 * Cross-site form posts are refused (SPEC section 7), for every form the core serves (login, logout,
 * registration, the forgotten-password pages, the config area): the session cookie is SameSite=Lax,
 * and a POST whose Origin (or, without one, Referer) is another site is 403. Programs that send
 * neither header are not browsers and are let through.
 */
export const sameOrigin = step('sameOrigin', ({ req, config }) => {
  const own = `${req.protocol}://${req.get('host') ?? ''}`;
  const allowed = [own, ...config.server.allowedRedirectOrigins];
  const origin = req.headers.origin;
  let claimed: string | undefined = origin;
  if (origin === undefined && typeof req.headers.referer === 'string') {
    try {
      claimed = new URL(req.headers.referer).origin;
    } catch {
      claimed = 'null';
    }
  }
  if (claimed !== undefined && !allowed.includes(claimed)) throw new Forbidden('cross-site form posts are refused');
});

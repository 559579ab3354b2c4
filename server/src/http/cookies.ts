import type { Request, Response } from 'express';
import type { Core } from '../core';

export { readCookie } from '../../../common/src/http/read-cookie';

/** The session cookie per SPEC section 4: HttpOnly, SameSite=Lax, Secure over TLS. */
export function setSessionCookie(core: Core, req: Request, res: Response, value: string | undefined): void {
  const g = core.config.global;
  const secure = g['cookie.secure'] === 'always' || (g['cookie.secure'] === 'auto' && req.secure);
  const parts = [`${g['http.session.cookie.uniqueid']}=${value ?? ''}`, `Path=${g['server.cookiepath']}`, 'HttpOnly', 'SameSite=Lax'];
  if (secure) parts.push('Secure');
  if (value === undefined) parts.push('Max-Age=0');
  // One session cookie per response: a later decision (login, a flow storing state) replaces the
  // filter's, since clients disagree on which of two same-named cookies wins.
  const existing = res.getHeader('Set-Cookie');
  const others = (Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)]).filter(
    (cookie) => !cookie.startsWith(`${g['http.session.cookie.uniqueid']}=`),
  );
  res.setHeader('Set-Cookie', [...others, parts.join('; ')]);
}

import type { Request, Response } from 'express';
import type { Core } from '../core';

export { readCookie } from '../../../common/src/http/read-cookie';

/** The session cookie per SPEC section 4: HttpOnly, SameSite=Lax, Secure over TLS. */
export function setSessionCookie(core: Core, req: Request, res: Response, value: string | undefined): void {
  const { sessionCookie } = core.config.settings;
  const secure = sessionCookie.secure === 'always' || (sessionCookie.secure === 'auto' && req.secure);
  const parts = [`${sessionCookie.name}=${value ?? ''}`, `Path=${sessionCookie.path}`, 'HttpOnly', 'SameSite=Lax'];
  if (secure) parts.push('Secure');
  if (value === undefined) parts.push('Max-Age=0');
  // One session cookie per response: a later decision (login, a flow storing state) replaces the
  // filter's, since clients disagree on which of two same-named cookies wins.
  const existing = res.getHeader('Set-Cookie');
  const others = (Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)]).filter(
    (cookie) => !cookie.startsWith(`${sessionCookie.name}=`),
  );
  res.setHeader('Set-Cookie', [...others, parts.join('; ')]);
}

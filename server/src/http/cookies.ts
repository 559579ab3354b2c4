import type { Exchange } from './exchange';

export { readCookie } from '../../../common/src/http/read-cookie';

/** The session cookie per SPEC section 4: HttpOnly, SameSite=Lax, Secure over TLS. */
export function setSessionCookie({ req, res, config }: Exchange, value: string | undefined): void {
  const { name, path, secure: when } = config.settings.sessionCookie;
  const secure = when === 'always' || (when === 'auto' && req.secure);
  const parts = [`${name}=${value ?? ''}`, `Path=${path}`, 'HttpOnly', 'SameSite=Lax'];
  if (secure) parts.push('Secure');
  if (value === undefined) parts.push('Max-Age=0');
  // One session cookie per response: a later decision (login, a flow storing state) replaces the
  // filter's, since clients disagree on which of two same-named cookies wins.
  const existing = res.getHeader('Set-Cookie');
  const others = (Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)]).filter((cookie) => !cookie.startsWith(`${name}=`));
  res.setHeader('Set-Cookie', [...others, parts.join('; ')]);
}

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

/** The cookie that holds a browser's `pending` between the password page and the code page (SPEC 15). */
export const OTP_PENDING_COOKIE = 'SVCOTPPENDING';

/**
 * Sets (or, with undefined, clears) the browser's pending second step: the signed `pending` token
 * itself (never a session), HttpOnly and SameSite=Lax like the session cookie, sent to the login
 * path only, for the token's 5 minutes.
 */
export function setOtpPendingCookie({ req, res, config }: Exchange, value: string | undefined, maxAgeSeconds: number): void {
  const when = config.settings.sessionCookie.secure;
  const parts = [`${OTP_PENDING_COOKIE}=${value ?? ''}`, `Path=${config.server.contextRoot}/login`, 'HttpOnly', 'SameSite=Lax', `Max-Age=${value === undefined ? 0 : maxAgeSeconds}`];
  if (when === 'always' || (when === 'auto' && req.secure)) parts.push('Secure');
  const existing = res.getHeader('Set-Cookie');
  const others = (Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)]).filter((cookie) => !cookie.startsWith(`${OTP_PENDING_COOKIE}=`));
  res.setHeader('Set-Cookie', [...others, parts.join('; ')]);
}

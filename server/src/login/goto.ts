/**
 * The `goto` of login and logout is followed only when it is a relative path under the server's
 * own context root or a URL on a configured allowed origin (SPEC section 4); anything else is
 * ignored, which closes the open redirect.
 */
export function checkedGoto(goto: string | undefined, contextRoot: string, allowedOrigins: readonly string[]): string | undefined {
  if (goto === undefined || goto.length === 0 || goto.length > 2048) return undefined;
  // Control characters and backslashes are read differently by browsers than by URL parsers.
  if ([...goto].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f' || c === '\\')) return undefined;
  if (goto.startsWith('/') && !goto.startsWith('//')) {
    const base = 'http://svc.invalid';
    const url = new URL(goto, base);
    if (url.origin !== base) return undefined;
    const under = url.pathname === contextRoot || url.pathname.startsWith(`${contextRoot}/`);
    return under ? url.pathname + url.search + url.hash : undefined;
  }
  let url: URL;
  try {
    url = new URL(goto);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password) return undefined;
  return allowedOrigins.some((origin) => safeOrigin(origin) === url.origin) ? url.href : undefined;
}

function safeOrigin(origin: string): string | undefined {
  try {
    return new URL(origin).origin;
  } catch {
    return undefined;
  }
}

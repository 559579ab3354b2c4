/**
 * The raw request target, taken apart without ever normalising it: a path that would normalise
 * elsewhere (dot segments, encoded dots or slashes, backslashes, empty segments) is refused, so what
 * the gateway routes is exactly what the core receives. Query parameters that carry credentials are
 * removed by name, case-insensitively; every other byte of the query passes as sent.
 */
import type { CredentialParameterTest } from '../../common/src/wire/credential-parameters';

export interface RequestTarget {
  /** The raw path as sent, e.g. `/gw/api/contexts/employees`. */
  path: string;
  /** The raw query without `?` (may be empty). */
  query: string;
}

export function splitTarget(originalUrl: string): RequestTarget {
  const q = originalUrl.indexOf('?');
  return q < 0 ? { path: originalUrl, query: '' } : { path: originalUrl.slice(0, q), query: originalUrl.slice(q + 1) };
}

/** True when every segment is plain: no `.`/`..`, no encoded `.`, `/` or `\`, no `\`, no empty segment. */
export function isPlainPath(path: string): boolean {
  if (!path.startsWith('/') || path.includes('\\') || /%(2e|2f|5c|00)/i.test(path)) return false;
  const segments = path.slice(1).split('/');
  return segments.every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** The query without the credential parameters (svc's `clientid`, `clientcred`, `user`, `password`, `token` and the renamed ones; any letter case). */
export function stripQuery(query: string, isCredentialParameter: CredentialParameterTest): string {
  if (query === '') return '';
  return query
    .split('&')
    .filter((pair) => {
      const eq = pair.indexOf('=');
      return !isCredentialParameter(decodeName(eq < 0 ? pair : pair.slice(0, eq)).trim());
    })
    .join('&');
}

import { InvalidRequest } from '../errors';

/**
 * A path whose percent-escapes do not decode (`%`, `%E0%A4%A`, `%FF`: not two hex digits, or not
 * UTF-8) names nothing: every process refuses it with 400 where its requests start (SPEC 3), before
 * any route would try to decode it and fail in its own way.
 */
export function malformedPathEscape(path: string): InvalidRequest | undefined {
  if (!path.includes('%')) return undefined;
  try {
    decodeURIComponent(path);
    return undefined;
  } catch {
    return new InvalidRequest('the path is not valid percent-encoding');
  }
}

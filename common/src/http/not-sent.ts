/**
 * Error codes of undici (and the system errors it wraps) that mean the request never left: no
 * connection was made, a connect that timed out included. Such a request may go to another gateway
 * or core without being sent twice; any other failure may have reached its target.
 */
const NOT_SENT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export function isNotSent(code: string): boolean {
  return NOT_SENT_CODES.has(code);
}

/**
 * What every piece of shared state in Redis does the same way: bounded key parts, and failing closed.
 */
import { createHash } from 'node:crypto';
import { ServiceUnavailable, SvcError } from '../../../common/src/errors';

/**
 * A bounded Redis key part without `:` for a caller-given value (a subject, an address, a name as
 * typed): the value URI-encoded, or `#` + its SHA-256 when longer than 128 characters, so that no
 * input makes a key long or lets one part pose as two.
 */
export const keyPart = (value: string): string =>
  value.length <= 128 ? encodeURIComponent(value) : `#${createHash('sha256').update(value, 'utf8').digest('base64url')}`;

/**
 * Runs one Redis operation; any failure but the service's own errors becomes ServiceUnavailable (503)
 * naming `what`, the cause kept for the log. A decision that needs a shared counter or marker is then
 * refused, never taken without it.
 */
export async function failClosed<T>(what: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof SvcError) throw error;
    throw new ServiceUnavailable(`The ${what} is unavailable`, { cause: error });
  }
}

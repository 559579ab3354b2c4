/**
 * What a failure to talk to a core means for the portal: unreachable → 502, too slow → 504 (SPEC
 * section 9). `CoreUnreachable` also tells the pool to skip that core until its /health answers.
 */
import { BadGateway, GatewayTimeout, SvcError } from '../../common/src/errors';
import { isNotSent } from '../../common/src/http/not-sent';

/** A 502 whose cause is a connection failure: the core is skipped until it is healthy again. */
export class CoreUnreachable extends BadGateway {
  /** True when nothing reached the core (connection refused): any request may be sent elsewhere. */
  readonly notSent: boolean;
  constructor(notSent: boolean, cause: unknown) {
    super('the core server is unreachable', { cause });
    this.notSent = notSent;
  }
}

/** The core took the request and did not answer in time: 504. */
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** The error codes along the cause chain (undici wraps the system error). */
function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

/** Any error from undici as an SvcError the portal may see (a connect that timed out: unreachable, 502). */
export function toGatewayError(error: unknown): SvcError {
  if (error instanceof SvcError) return error;
  const codes = codesOf(error);
  if (codes.some((code) => TIMEOUTS.has(code))) return new GatewayTimeout('the core server did not answer in time');
  return new CoreUnreachable(codes.some(isNotSent), error);
}

/**
 * What a failed exchange with a core becomes (SPEC section 9, "Faults"): a core that cannot be
 * reached is 502 and is skipped until healthy, a connect that timed out included (nothing reached
 * it); a core that took the request and did not answer in time is 504. The errors are undici's own.
 */
import { errors } from 'undici';
import { GatewayTimeout } from '../../common/src/errors';
import { CoreUnreachable, toGatewayError } from '../../gateway/src/core-errors';

const systemError = (code: string) => Object.assign(new Error(code), { code });

test.each([
  ['a connect that timed out', new errors.ConnectTimeoutError(), true],
  ['a connection refused', new TypeError('fetch failed', { cause: systemError('ECONNREFUSED') }), true],
  ['a TCP timeout on an open connection (ETIMEDOUT)', systemError('ETIMEDOUT'), false],
  ['a connection reset', systemError('ECONNRESET'), false],
])('%s: 502, the core skipped', (_name, error, notSent) => {
  const mapped = toGatewayError(error);
  expect(mapped).toBeInstanceOf(CoreUnreachable);
  expect(mapped).toMatchObject({ status: 502, code: 'bad_gateway', notSent });
});

test.each([
  ['no answer headers in time', new errors.HeadersTimeoutError()],
  ['the answer body stalled', new errors.BodyTimeoutError()],
])('%s: 504', (_name, error) => {
  const mapped = toGatewayError(error);
  expect(mapped).toBeInstanceOf(GatewayTimeout);
  expect(mapped).toMatchObject({ status: 504, code: 'gateway_timeout' });
});

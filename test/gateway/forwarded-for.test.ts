/**
 * SPEC section 9's `X-Svc-Forwarded-For` (the visitor's address as the gateway vouches for it to a
 * core): the test vector, and every way a header can fail to prove who sent it, for which request
 * and when.
 */
import { forwardedForKey, signForwardedFor, verifyForwardedFor, type VerifyForwardedForOptions } from '../../common/src/assertion/forwarded-for';

const SECRET = 'Z2F0ZXdheS1zZWNyZXQtZm9yLXRlc3QtdmVjdG9ycy1vbmx5';
const NEW_SECRET = 'bmV3LWdhdGV3YXktc2VjcmV0LWZvci10aGUtcm90YXRpb24tdGVzdA';
const CLIENT = 'portal-gateway';
const TS = 1795000000;
const ADDRESS = '203.0.113.7';
const PATH = '/svc/resources/contexts/employees/subjects/bob?isAllowed=READ';
const VECTOR = 'portal-gateway.MjAzLjAuMTEzLjc.1795000000.ezxx3eKr7xB1es8qvDTNyyd-uNnwjEXdh0F1KOKjuLU';
const KEY = forwardedForKey(SECRET);

function options(overrides: Partial<VerifyForwardedForOptions> = {}): VerifyForwardedForOptions {
  return { method: 'GET', pathAndQuery: PATH, now: TS, keys: (id) => (id === CLIENT ? [KEY] : undefined), ...overrides };
}

describe('the test vector of SPEC section 9', () => {
  it('signs to the vector', () => {
    expect(signForwardedFor({ clientId: CLIENT, key: KEY, address: ADDRESS, method: 'GET', pathAndQuery: PATH, now: TS })).toBe(VECTOR);
  });

  it('verifies to the address', () => {
    expect(verifyForwardedFor(VECTOR, options())).toEqual({ ok: true, clientId: CLIENT, address: ADDRESS });
  });
});

describe('what does not verify', () => {
  it.each([
    ['another method', { method: 'POST' }, 'bad_signature'],
    ['another path', { pathAndQuery: '/svc/resources/contexts/employees/subjects/alice?isAllowed=READ' }, 'bad_signature'],
    ['another query', { pathAndQuery: '/svc/resources/contexts/employees/subjects/bob?isAllowed=DELETE' }, 'bad_signature'],
    ['a path without the context root', { pathAndQuery: '/resources/contexts/employees/subjects/bob?isAllowed=READ' }, 'bad_signature'],
    ['a client that may not vouch', { keys: () => undefined }, 'unknown_client'],
    ['another secret', { keys: () => [forwardedForKey(NEW_SECRET)] }, 'bad_signature'],
    ['61 s later', { now: TS + 61 }, 'stale'],
    ['61 s earlier', { now: TS - 61 }, 'stale'],
  ])('%s', (_what, overrides, reason) => {
    expect(verifyForwardedFor(VECTOR, options(overrides))).toMatchObject({ ok: false, reason });
  });

  it('60 s either way still verifies', () => {
    expect(verifyForwardedFor(VECTOR, options({ now: TS + 60 })).ok).toBe(true);
    expect(verifyForwardedFor(VECTOR, options({ now: TS - 60 })).ok).toBe(true);
  });

  it('either secret verifies during a rotation', () => {
    const keys = () => [forwardedForKey(NEW_SECRET), KEY];
    expect(verifyForwardedFor(VECTOR, options({ keys })).ok).toBe(true);
  });

  const forge = (address: string) => `${CLIENT}.${Buffer.from(address).toString('base64url')}.${TS}.${VECTOR.split('.').pop()}`;
  it.each([
    ['another address under the same signature', forge('198.51.100.1')],
    ['a signature of another client id', VECTOR.replace('portal-gateway', 'portal-gatewaz')],
  ])('%s', (_what, header) => {
    expect(verifyForwardedFor(header, options({ keys: () => [KEY] }))).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it.each([
    ['empty', ''],
    ['a plain address', '203.0.113.7'],
    ['three parts', 'portal-gateway.MjAzLjAuMTEzLjc.1795000000'],
    ['no client id', '.MjAzLjAuMTEzLjc.1795000000.ezxx3eKr7xB1es8qvDTNyyd-uNnwjEXdh0F1KOKjuLU'],
    ['an address that is not one', forge('not-an-address')],
    ['two addresses', forge('203.0.113.7, 10.0.0.1')],
    ['an address with a newline', forge('203.0.113.7\n')],
    ['padding in the address', VECTOR.replace('MjAzLjAuMTEzLjc', 'MjAzLjAuMTEzLjc=')],
    ['a timestamp with a sign', VECTOR.replace('.1795000000.', '.+1795000000.')],
    ['a timestamp with a leading zero', VECTOR.replace('.1795000000.', '.01795000000.')],
    ['a short signature', VECTOR.slice(0, -2)],
    ['a signature in base64 with padding', `${VECTOR}=`],
    ['too long', `${'a'.repeat(300)}.${VECTOR}`],
  ])('malformed: %s', (_what, header) => {
    expect(verifyForwardedFor(header, options())).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('parses client ids with dots from the right', () => {
    const header = signForwardedFor({ clientId: 'gw.eu-1.example', key: KEY, address: '2001:db8::7', method: 'POST', pathAndQuery: '/svc/login', now: TS });
    expect(verifyForwardedFor(header, options({ method: 'POST', pathAndQuery: '/svc/login', keys: (id) => (id === 'gw.eu-1.example' ? [KEY] : undefined) }))).toEqual({
      ok: true,
      clientId: 'gw.eu-1.example',
      address: '2001:db8::7',
    });
  });
});

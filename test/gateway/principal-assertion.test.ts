/**
 * SPEC section 9's portal assertion: the test vector, and every way a header can fail to prove who
 * sent it, for which request, and when.
 */
import {
  PrincipalAssertionRejected,
  signPrincipalAssertion,
  verifyPrincipalAssertion,
  type VerifyPrincipalAssertionOptions,
} from '../../common/src/assertion/principal-assertion';
import { MemoryNonceStore } from '../../common/src/memory-nonce-store';
import type { NonceStore } from '../../common/src/nonce-store';

const SECRET = 'cG9ydGFsLXNlY3JldC1mb3ItdGVzdC12ZWN0b3JzLW9ubHk';
const OTHER_SECRET = 'YW5vdGhlci1wb3J0YWwtc2VjcmV0LWZvci10aGUtdGVzdHM';
const PORTAL = 'demo-portal';
const TS = 1795000000;
const NONCE = 'EBESExQVFhcYGRobHB0eHw';
const PATH = '/gw/api/contexts/employees/subjects/bob?isAllowed=READ';
const VECTOR =
  'v1.demo-portal.Ym9i.cG9ydGFsLXNlc3Npb24tNDI.1795000000.EBESExQVFhcYGRobHB0eHw.6Df9iIK2EtiyeBR0bkpGzHiMVGKLnl_bBd28dK-xQG4';

function options(overrides: Partial<VerifyPrincipalAssertionOptions> = {}): VerifyPrincipalAssertionOptions {
  return {
    method: 'GET',
    pathAndQuery: PATH,
    now: TS,
    portals: (id) => (id === PORTAL ? [SECRET] : undefined),
    nonces: new MemoryNonceStore(),
    ...overrides,
  };
}

async function expectRejected(attempt: Promise<unknown>, reason: string): Promise<void> {
  const error = await attempt.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(PrincipalAssertionRejected);
  expect(error).toMatchObject({ reason, status: 401, code: 'invalid_assertion', message: 'The request does not carry a valid principal assertion.' });
}

const sign = (overrides: Partial<Parameters<typeof signPrincipalAssertion>[0]> = {}) =>
  signPrincipalAssertion({ portalId: PORTAL, secret: SECRET, user: 'bob', visitor: 'portal-session-42', method: 'GET', pathAndQuery: PATH, now: TS, ...overrides });

/** Replaces part `index` (0 = `v1`, 6 = sig) of a header. */
const withPart = (header: string, index: number, value: string) =>
  header
    .split('.')
    .map((part, i) => (i === index ? value : part))
    .join('.');

describe('principal assertion (SPEC 9)', () => {
  it('reproduces the test vector', async () => {
    expect(sign({ nonce: NONCE })).toBe(VECTOR);
    await expect(verifyPrincipalAssertion(VECTOR, options())).resolves.toEqual({
      portalId: PORTAL,
      user: 'bob',
      visitor: 'cG9ydGFsLXNlc3Npb24tNDI',
    });
  });

  it('round-trips an anonymous visitor and a non-ASCII user', async () => {
    await expect(verifyPrincipalAssertion(sign({ user: null }), options())).resolves.toMatchObject({ user: null });
    expect(sign({ user: null }).split('.')[2]).toBe('');
    const user = 'j\u00fcrgen';
    await expect(verifyPrincipalAssertion(sign({ user }), options())).resolves.toMatchObject({ user });
  });

  it('refuses a missing header', async () => {
    await expectRejected(verifyPrincipalAssertion(undefined, options()), 'malformed');
    await expectRejected(verifyPrincipalAssertion('', options()), 'malformed');
  });

  it.each([
    ['another version', (h: string) => withPart(h, 0, 'v2')],
    ['a bad portal id', (h: string) => withPart(h, 1, 'demo portal')],
    ['a user that is not base64url', (h: string) => withPart(h, 2, 'Ym9i=')],
    ['a user that is not UTF-8', (h: string) => withPart(h, 2, Buffer.from([0xc3, 0x28]).toString('base64url'))],
    ['an empty visitor', (h: string) => withPart(h, 3, '')],
    ['a visitor over 128 bytes', (h: string) => withPart(h, 3, Buffer.alloc(129, 1).toString('base64url'))],
    ['a signed ts', (h: string) => withPart(h, 4, '+1795000000')],
    ['a ts with a leading zero', (h: string) => withPart(h, 4, '01795000000')],
    ['a fractional ts', (h: string) => withPart(h, 4, '1795000000.5')],
    ['a short nonce', (h: string) => withPart(h, 5, 'EBESExQVFhcYGRobHB0e')],
    ['a short sig', (h: string) => withPart(h, 6, 'AAAA')],
    ['a missing part', (h: string) => h.split('.').slice(0, 6).join('.')],
    ['an extra part', (h: string) => `${h}.x`],
    ['surrounding space', (h: string) => ` ${h}`],
  ])('refuses %s as malformed', async (_what, mangle: (header: string) => string) => {
    await expectRejected(verifyPrincipalAssertion(mangle(VECTOR), options()), 'malformed');
  });

  it('refuses a forged signature', async () => {
    const forged = sign({ secret: OTHER_SECRET });
    await expectRejected(verifyPrincipalAssertion(forged, options()), 'bad_signature');
    const sig = Buffer.from(VECTOR.split('.')[6], 'base64url');
    sig[0] ^= 1;
    await expectRejected(verifyPrincipalAssertion(withPart(VECTOR, 6, sig.toString('base64url')), options()), 'bad_signature');
  });

  it('refuses a signed part changed after signing', async () => {
    const alice = Buffer.from('alice').toString('base64url');
    await expectRejected(verifyPrincipalAssertion(withPart(VECTOR, 2, alice), options()), 'bad_signature');
    await expectRejected(verifyPrincipalAssertion(withPart(VECTOR, 4, String(TS + 1)), options()), 'bad_signature');
  });

  it('refuses the header on another method or another path', async () => {
    await expectRejected(verifyPrincipalAssertion(VECTOR, options({ method: 'DELETE' })), 'bad_signature');
    await expectRejected(verifyPrincipalAssertion(VECTOR, options({ pathAndQuery: '/gw/api/contexts/employees/subjects/alice?isAllowed=READ' })), 'bad_signature');
    await expectRejected(verifyPrincipalAssertion(VECTOR, options({ pathAndQuery: '/gw/api/contexts/employees/subjects/bob' })), 'bad_signature');
  });

  it('accepts the edges of the 60 s window and refuses beyond', async () => {
    await expect(verifyPrincipalAssertion(VECTOR, options({ now: TS + 60 }))).resolves.toMatchObject({ user: 'bob' });
    await expect(verifyPrincipalAssertion(VECTOR, options({ now: TS - 60 }))).resolves.toMatchObject({ user: 'bob' });
    await expectRejected(verifyPrincipalAssertion(VECTOR, options({ now: TS + 61 })), 'stale');
    await expectRejected(verifyPrincipalAssertion(VECTOR, options({ now: TS - 61 })), 'stale');
  });

  it('refuses a replay, keyed by portal and nonce for 180 s, checked only after the signature', async () => {
    const calls: Array<[string, number]> = [];
    const memory = new MemoryNonceStore();
    const nonces: NonceStore = { rememberOnce: (key, ttl) => (calls.push([key, ttl]), memory.rememberOnce(key, ttl)) };
    await expectRejected(verifyPrincipalAssertion(sign({ nonce: NONCE, secret: OTHER_SECRET }), options({ nonces })), 'bad_signature');
    await expectRejected(verifyPrincipalAssertion(VECTOR, options({ nonces, now: TS + 61 })), 'stale');
    expect(calls).toEqual([]);
    await verifyPrincipalAssertion(VECTOR, options({ nonces }));
    await expectRejected(verifyPrincipalAssertion(VECTOR, options({ nonces })), 'replayed');
    expect(calls).toEqual([
      [`assertion|${PORTAL}|${NONCE}`, 180],
      [`assertion|${PORTAL}|${NONCE}`, 180],
    ]);
  });

  it('refuses an unknown portal, and accepts either secret during a rotation', async () => {
    await expectRejected(verifyPrincipalAssertion(sign({ portalId: 'other-portal' }), options()), 'unknown_portal');
    await expectRejected(verifyPrincipalAssertion(VECTOR, options({ portals: () => [] })), 'unknown_portal');
    const rotating = options({ portals: () => [OTHER_SECRET, SECRET] });
    await expect(verifyPrincipalAssertion(VECTOR, rotating)).resolves.toMatchObject({ portalId: PORTAL });
  });

  it('treats bad signing input as a caller mistake', () => {
    expect(() => sign({ user: '' })).toThrow(TypeError);
    expect(() => sign({ visitor: '' })).toThrow(TypeError);
    expect(() => sign({ secret: 'short' })).toThrow(TypeError);
    expect(() => sign({ portalId: 'a.b' })).toThrow(TypeError);
    expect(() => sign({ now: 1.5 })).toThrow(TypeError);
  });
});

/**
 * SPEC section 9's portal assertion (v2): both test vectors, and every way a header can fail to prove
 * who sent it, for whom, from where, for which request, and when.
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
const ADDRESS = '203.0.113.7';
const BOB = { contextId: 'employees', uniqueId: 'bob' };
const VECTOR =
  'v2.demo-portal.ZW1wbG95ZWVzL2JvYg.cG9ydGFsLXNlc3Npb24tNDI.MjAzLjAuMTEzLjc.1795000000.EBESExQVFhcYGRobHB0eHw.hmDlsqoQQBpfxXTND1B55WI1X8NuD2VyLxjSs6cWfuA';
const ANONYMOUS_LOGIN_VECTOR =
  'v2.demo-portal..cG9ydGFsLXNlc3Npb24tNDI.MjAzLjAuMTEzLjc.1795000000.EBESExQVFhcYGRobHB0eHw.wbspIyKrOYfqrFzooh4V4aq-AjotUhZG9GfiAprHNOU';
/** The v1 header of the old SPEC (bare uniqueId, no address) for the same request: refused now. */
const V1_VECTOR =
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
  signPrincipalAssertion({ portalId: PORTAL, secret: SECRET, user: BOB, visitor: 'portal-session-42', address: ADDRESS, method: 'GET', pathAndQuery: PATH, now: TS, ...overrides });

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** Replaces part `index` (0 = `v2`, 7 = sig) of a header. */
const withPart = (header: string, index: number, value: string) =>
  header
    .split('.')
    .map((part, i) => (i === index ? value : part))
    .join('.');

describe('principal assertion (SPEC 9)', () => {
  it('reproduces the test vector of a user', async () => {
    expect(sign({ nonce: NONCE })).toBe(VECTOR);
    await expect(verifyPrincipalAssertion(VECTOR, options())).resolves.toEqual({
      portalId: PORTAL,
      user: BOB,
      visitor: 'cG9ydGFsLXNlc3Npb24tNDI',
      address: ADDRESS,
    });
  });

  it('reproduces the test vector of an anonymous visitor logging in', async () => {
    const login = { method: 'POST', pathAndQuery: '/gw/api/login' };
    expect(sign({ user: undefined, nonce: NONCE, ...login })).toBe(ANONYMOUS_LOGIN_VECTOR);
    expect(sign({ user: null, nonce: NONCE, ...login })).toBe(ANONYMOUS_LOGIN_VECTOR);
    await expect(verifyPrincipalAssertion(ANONYMOUS_LOGIN_VECTOR, options(login))).resolves.toEqual({
      portalId: PORTAL,
      user: null,
      visitor: 'cG9ydGFsLXNlc3Npb24tNDI',
      address: ADDRESS,
    });
  });

  it('refuses a v1 assertion, even one correctly signed with the portal secret', async () => {
    await expectRejected(verifyPrincipalAssertion(V1_VECTOR, options()), 'malformed');
  });

  it('round-trips an unknown address and an IPv6 address', async () => {
    expect(sign({ address: null }).split('.')[4]).toBe('');
    await expect(verifyPrincipalAssertion(sign({ address: null }), options())).resolves.toMatchObject({ address: null });
    await expect(verifyPrincipalAssertion(sign({ address: undefined }), options())).resolves.toMatchObject({ address: null });
    await expect(verifyPrincipalAssertion(sign({ address: '2001:db8::7' }), options())).resolves.toMatchObject({ address: '2001:db8::7' });
  });

  it('keeps the user exactly as signed: context and uniqueId, no case folding', async () => {
    const user = { contextId: 'customers', uniqueId: 'ALICE@example.org' };
    await expect(verifyPrincipalAssertion(sign({ user }), options())).resolves.toMatchObject({ user });
  });

  it('refuses a missing header', async () => {
    await expectRejected(verifyPrincipalAssertion(undefined, options()), 'malformed');
    await expectRejected(verifyPrincipalAssertion('', options()), 'malformed');
  });

  it.each([
    ['another version', (h: string) => withPart(h, 0, 'v3')],
    ['version 1', (h: string) => withPart(h, 0, 'v1')],
    ['a bad portal id', (h: string) => withPart(h, 1, 'demo portal')],
    ['a user that is not base64url', (h: string) => withPart(h, 2, 'Ym9i=')],
    ['a user that is not UTF-8', (h: string) => withPart(h, 2, Buffer.from([0xc3, 0x28]).toString('base64url'))],
    ['a user without its context (v1 style)', (h: string) => withPart(h, 2, b64('bob'))],
    ['a user with an empty context', (h: string) => withPart(h, 2, b64('/bob'))],
    ['a user with an empty uniqueId', (h: string) => withPart(h, 2, b64('employees/'))],
    ['a user with two slashes', (h: string) => withPart(h, 2, b64('employees/bob/x'))],
    ['a user whose uniqueId is not a subject id', (h: string) => withPart(h, 2, b64('employees/b b'))],
    ['an empty visitor', (h: string) => withPart(h, 3, '')],
    ['a visitor over 128 bytes', (h: string) => withPart(h, 3, Buffer.alloc(129, 1).toString('base64url'))],
    ['an address that is not an IP address', (h: string) => withPart(h, 4, b64('example.org'))],
    ['an address list', (h: string) => withPart(h, 4, b64('203.0.113.7, 10.0.0.1'))],
    ['an address with a line break', (h: string) => withPart(h, 4, b64('203.0.113.7\r\nX-Foo: 1'))],
    ['an address that is not base64url', (h: string) => withPart(h, 4, 'MjAzLjAuMTEzLjc=')],
    ['a signed ts', (h: string) => withPart(h, 5, '+1795000000')],
    ['a ts with a leading zero', (h: string) => withPart(h, 5, '01795000000')],
    ['a fractional ts', (h: string) => withPart(h, 5, '1795000000.5')],
    ['a short nonce', (h: string) => withPart(h, 6, 'EBESExQVFhcYGRobHB0e')],
    ['a short sig', (h: string) => withPart(h, 7, 'AAAA')],
    ['a missing part', (h: string) => h.split('.').slice(0, 7).join('.')],
    ['an extra part', (h: string) => `${h}.x`],
    ['surrounding space', (h: string) => ` ${h}`],
  ])('refuses %s as malformed', async (_what, mangle: (header: string) => string) => {
    await expectRejected(verifyPrincipalAssertion(mangle(VECTOR), options()), 'malformed');
  });

  it('refuses a forged signature', async () => {
    const forged = sign({ secret: OTHER_SECRET });
    await expectRejected(verifyPrincipalAssertion(forged, options()), 'bad_signature');
    const sig = Buffer.from(VECTOR.split('.')[7], 'base64url');
    sig[0] ^= 1;
    await expectRejected(verifyPrincipalAssertion(withPart(VECTOR, 7, sig.toString('base64url')), options()), 'bad_signature');
  });

  it('refuses a signed part changed after signing', async () => {
    await expectRejected(verifyPrincipalAssertion(withPart(VECTOR, 2, b64('employees/alice')), options()), 'bad_signature');
    await expectRejected(verifyPrincipalAssertion(withPart(VECTOR, 2, b64('customers/bob')), options()), 'bad_signature');
    await expectRejected(verifyPrincipalAssertion(withPart(VECTOR, 2, ''), options()), 'bad_signature');
    await expectRejected(verifyPrincipalAssertion(withPart(VECTOR, 3, b64('portal-session-43')), options()), 'bad_signature');
    await expectRejected(verifyPrincipalAssertion(withPart(VECTOR, 4, b64('198.51.100.1')), options()), 'bad_signature');
    await expectRejected(verifyPrincipalAssertion(withPart(VECTOR, 4, ''), options()), 'bad_signature');
    await expectRejected(verifyPrincipalAssertion(withPart(VECTOR, 5, String(TS + 1)), options()), 'bad_signature');
  });

  it('refuses the header on another method or another path', async () => {
    await expectRejected(verifyPrincipalAssertion(VECTOR, options({ method: 'DELETE' })), 'bad_signature');
    await expectRejected(verifyPrincipalAssertion(VECTOR, options({ pathAndQuery: '/gw/api/contexts/employees/subjects/alice?isAllowed=READ' })), 'bad_signature');
    await expectRejected(verifyPrincipalAssertion(VECTOR, options({ pathAndQuery: '/gw/api/contexts/employees/subjects/bob' })), 'bad_signature');
  });

  it('accepts the edges of the 60 s window and refuses beyond', async () => {
    await expect(verifyPrincipalAssertion(VECTOR, options({ now: TS + 60 }))).resolves.toMatchObject({ user: BOB });
    await expect(verifyPrincipalAssertion(VECTOR, options({ now: TS - 60 }))).resolves.toMatchObject({ user: BOB });
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
    expect(() => sign({ user: { contextId: '', uniqueId: 'bob' } })).toThrow(TypeError);
    expect(() => sign({ user: { contextId: 'employees', uniqueId: '' } })).toThrow(TypeError);
    expect(() => sign({ user: { contextId: 'employees', uniqueId: 'a/b' } })).toThrow(TypeError);
    expect(() => sign({ address: 'localhost' })).toThrow(TypeError);
    expect(() => sign({ address: '' })).toThrow(TypeError);
    expect(() => sign({ visitor: '' })).toThrow(TypeError);
    expect(() => sign({ secret: 'short' })).toThrow(TypeError);
    expect(() => sign({ portalId: 'a.b' })).toThrow(TypeError);
    expect(() => sign({ now: 1.5 })).toThrow(TypeError);
  });
});

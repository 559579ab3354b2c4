/**
 * The codes svc computes are RFC 6238's (SPEC 15): the appendix B vectors (the RFC's own seeds, 8
 * digits, SHA-1, SHA-256 and SHA-512), codes made by Debian's oathtool accepted one step either side
 * and no further, and a secret sealed at rest opening only for its own subject under its own key.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSecret, sealSecret } from '../../server/src/otp/factor-cipher';
import { codeAt, matchingStep, newSecret, otpauthUri } from '../../server/src/otp/totp';

// The RFC's seeds, base32: "12345678901234567890" repeated to 20, 32 and 64 bytes.
const SHA1 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const SHA256 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA';
const SHA512 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNA';

const VECTORS: Array<[number, string, string, string]> = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

const oathtool = (secret: string, seconds: number) => execFileSync('oathtool', ['--totp', '-b', secret, '--now', `@${seconds}`], { encoding: 'utf8' }).trim();

describe('RFC 6238 appendix B', () => {
  test.each(VECTORS)('T = %d s', (seconds, sha1, sha256, sha512) => {
    expect(codeAt(SHA1, seconds * 1000, { digits: 8 })).toBe(sha1);
    expect(codeAt(SHA256, seconds * 1000, { digits: 8, algorithm: 'SHA256' })).toBe(sha256);
    expect(codeAt(SHA512, seconds * 1000, { digits: 8, algorithm: 'SHA512' })).toBe(sha512);
  });
});

describe("Debian's oathtool", () => {
  const secret = newSecret();
  const t = 1_795_000_020;

  test('a new secret is 160 bits of base32, its URI as SPEC 15 writes it', () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUri(secret, 'bob')).toBe(`otpauth://totp/svc%3Abob?secret=${secret}&issuer=svc&algorithm=SHA1&digits=6&period=30`);
  });

  test('its code is accepted at its step and one step either side, not two', () => {
    const code = oathtool(secret, t);
    expect(code).toBe(codeAt(secret, t * 1000));
    const step = t / 30;
    expect(matchingStep(secret, code, t * 1000)).toBe(step);
    expect(matchingStep(secret, code, (t + 30) * 1000)).toBe(step);
    expect(matchingStep(secret, code, (t - 30) * 1000)).toBe(step);
    expect(matchingStep(secret, code, (t + 60) * 1000)).toBeUndefined();
    expect(matchingStep(secret, code, (t - 60) * 1000)).toBeUndefined();
  });

  test('anything but six digits is no code', () => {
    for (const code of ['', '12345', '1234567', 'abcdef', ' 123456']) expect(matchingStep(secret, code, t * 1000)).toBeUndefined();
  });
});

describe('the secret at rest', () => {
  const key = randomBytes(32);
  const secret = newSecret();

  test('opens for its subject under its key only', () => {
    const sealed = sealSecret(key, 'employees', 'bob', secret);
    expect(sealed).not.toContain(secret);
    expect(openSecret(key, 'employees', 'bob', sealed)).toBe(secret);
    expect(() => openSecret(key, 'employees', 'alice', sealed)).toThrow();
    expect(() => openSecret(randomBytes(32), 'employees', 'bob', sealed)).toThrow();
  });
});

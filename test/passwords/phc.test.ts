import { randomBytes } from 'node:crypto';
import { hashSync } from '@node-rs/argon2';
import {
  PhcFormatError,
  b64Decode,
  b64Encode,
  formatPhc,
  parsePhc,
  usesParams,
  type PhcHash,
} from '../../server/src/passwords/phc';

const SALT = 'c29tZXNhbHRzb21lc2FsdA'; // 16 bytes
const HASH = 'YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXphYmNkZWY'; // 32 bytes
const ARGON = `$argon2id$v=19$m=19456,t=2,p=1$${SALT}$${HASH}`;
const SCRYPT = `$scrypt$ln=17,r=8,p=1$${SALT}$${HASH}`;

describe('PHC strings', () => {
  it('parses argon2id and exposes its parameters', () => {
    const h = parsePhc(ARGON);
    expect(h).toMatchObject({ algorithm: 'argon2id', version: 19, params: { memoryCost: 19456, timeCost: 2, parallelism: 1 } });
    expect(h.salt.toString()).toBe('somesaltsomesalt');
    expect(h.hash).toHaveLength(32);
    expect(formatPhc(h)).toBe(ARGON);
  });

  it('parses scrypt and exposes its parameters', () => {
    const h = parsePhc(SCRYPT);
    expect(h).toMatchObject({ algorithm: 'scrypt', params: { ln: 17, r: 8, p: 1 } });
    expect(formatPhc(h)).toBe(SCRYPT);
  });

  it('round-trips random hashes of both algorithms', () => {
    for (let i = 0; i < 50; i++) {
      const salt = randomBytes(8 + (i % 57));
      const hash = randomBytes(16 + (i % 49));
      const hashes: PhcHash[] = [
        { algorithm: 'argon2id', version: 19, params: { memoryCost: 8 + i * 1000, timeCost: 1 + i, parallelism: 1 }, salt, hash },
        { algorithm: 'scrypt', params: { ln: 1 + (i % 24), r: 1 + (i % 64), p: 1 + (i % 3) }, salt, hash },
      ];
      for (const h of hashes) {
        const text = formatPhc(h);
        expect(text).not.toContain('=$');
        expect(parsePhc(text)).toEqual(h);
        expect(formatPhc(parsePhc(text))).toBe(text);
      }
    }
  });

  it('reads what @node-rs/argon2 writes', () => {
    const text = hashSync('pw', { memoryCost: 1024, timeCost: 1, parallelism: 1 });
    expect(formatPhc(parsePhc(text))).toBe(text);
  });

  it('B64 has no padding and is strict', () => {
    expect(b64Encode(Buffer.from('a'))).toBe('YQ');
    expect(b64Decode('YQ').toString()).toBe('a');
    expect(() => b64Decode('YQ==')).toThrow(PhcFormatError);
    expect(() => b64Decode('YR')).toThrow(/canonical/); // non-zero spare bits
    expect(() => b64Decode('Y')).toThrow(/length/);
    expect(() => b64Decode('Y-')).toThrow(/B64/);
  });

  it.each([
    ['empty', '', /start with/],
    ['a plaintext password', '$Secret!pass', /unsupported algorithm in the PHC string/],
    ['no leading $', ARGON.slice(1), /start with/],
    ['unknown algorithm', ARGON.replace('argon2id', 'argon2i'), /unsupported algorithm "argon2i"/],
    ['bcrypt', '$2b$10$abcdefghijklmnopqrstuu', /unsupported algorithm/],
    ['argon2 version 16', ARGON.replace('v=19', 'v=16'), /version/],
    ['argon2 version missing', `$argon2id$m=19456,t=2,p=1$${SALT}$${HASH}`, /argon2id PHC string must be/],
    ['hash missing', `$argon2id$v=19$m=19456,t=2,p=1$${SALT}`, /must be/],
    ['extra field', `${ARGON}$x`, /must be/],
    ['parameters reordered', ARGON.replace('m=19456,t=2,p=1', 't=2,m=19456,p=1'), /exactly m=…,t=…,p=…/],
    ['parameter missing', ARGON.replace('m=19456,t=2,p=1', 'm=19456,t=2'), /exactly/],
    ['extra parameter', ARGON.replace('p=1', 'p=1,keyid=x'), /exactly/],
    ['leading zero', ARGON.replace('t=2', 't=02'), /decimal/],
    ['negative', ARGON.replace('t=2', 't=-2'), /decimal/],
    ['not a number', ARGON.replace('t=2', 't=two'), /decimal/],
    ['zero passes', ARGON.replace('t=2', 't=0'), /outside/],
    ['memory below 8p', ARGON.replace('m=19456,t=2,p=1', 'm=16,t=2,p=4'), /8 \* p/],
    ['padded salt', ARGON.replace(SALT, `${SALT}==`), /B64/],
    ['url-safe salt', ARGON.replace(SALT, 'c29tZXNhbHRzb21lc2F-dA'), /B64/],
    ['short salt', ARGON.replace(SALT, 'YWJj'), /salt must be 8 to 64 bytes/],
    ['short hash', ARGON.replace(HASH, 'YWJjZGVmZ2g'), /hash must be 16 to 64 bytes/],
    ['scrypt order', SCRYPT.replace('ln=17,r=8,p=1', 'r=8,ln=17,p=1'), /exactly ln=…,r=…,p=…/],
    ['scrypt ln too big', SCRYPT.replace('ln=17', 'ln=40'), /ln=40 is outside 1..24/],
    ['scrypt with version', `$scrypt$v=1$ln=17,r=8,p=1$${SALT}$${HASH}`, /must be/],
    ['too long', `$scrypt$ln=17,r=8,p=1$${SALT}$${'A'.repeat(600)}`, /too long/],
  ])('refuses %s', (_name, text, message) => {
    expect(() => parsePhc(text)).toThrow(PhcFormatError);
    expect(() => parsePhc(text)).toThrow(message);
  });

  it('never puts the salt or hash into the error message', () => {
    try {
      parsePhc(ARGON.replace(HASH, `${HASH}==`));
      throw new Error('expected a failure');
    } catch (error) {
      expect((error as Error).message).not.toContain(HASH);
    }
  });

  it('tells whether a hash uses the current parameters', () => {
    const current = { argon2: { memoryCost: 19456, timeCost: 2, parallelism: 1 }, scrypt: { ln: 17, r: 8, p: 1 } };
    expect(usesParams(parsePhc(ARGON), 'argon2id', current)).toBe(true);
    expect(usesParams(parsePhc(ARGON), 'scrypt', current)).toBe(false);
    expect(usesParams(parsePhc(ARGON.replace('t=2', 't=3')), 'argon2id', current)).toBe(false);
    expect(usesParams(parsePhc(SCRYPT), 'scrypt', current)).toBe(true);
    expect(usesParams(parsePhc(SCRYPT.replace('ln=17', 'ln=16')), 'scrypt', current)).toBe(false);
  });
});

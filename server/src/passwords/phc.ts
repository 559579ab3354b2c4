/**
 * PHC string format (https://github.com/P-H-C/phc-string-format) for the two password hashes svc
 * stores:
 *
 *   $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>
 *   $scrypt$ln=17,r=8,p=1$<salt>$<hash>
 *
 * Salt and hash are "B64": standard base64 alphabet without padding. Parsing is strict: exactly these
 * parameters in this order, decimal values without sign or leading zeros, canonical B64, sane
 * lengths. Anything else is a PhcFormatError naming what is wrong (never the hash itself).
 */

export interface Argon2idParams {
  /** m: memory in KiB. */
  memoryCost: number;
  /** t: passes. */
  timeCost: number;
  /** p: lanes. */
  parallelism: number;
}

export interface ScryptParams {
  /** log2 of the cost N. */
  ln: number;
  /** Block size. */
  r: number;
  /** Parallelisation. */
  p: number;
}

export interface Argon2idHash {
  algorithm: 'argon2id';
  version: 19;
  params: Argon2idParams;
  salt: Buffer;
  hash: Buffer;
}

export interface ScryptHash {
  algorithm: 'scrypt';
  params: ScryptParams;
  salt: Buffer;
  hash: Buffer;
}

export type PhcHash = Argon2idHash | ScryptHash;
export type PhcAlgorithm = PhcHash['algorithm'];

export class PhcFormatError extends Error {
  override name = 'PhcFormatError';
}

/** Salt and hash byte lengths accepted when parsing (svc itself writes 16 and 32). */
export const SALT_BYTES = { min: 8, max: 64 } as const;
export const HASH_BYTES = { min: 16, max: 64 } as const;

/** Parameter ranges accepted for each algorithm. */
export const ARGON2ID_LIMITS = {
  memoryCost: { min: 8, max: 4 * 1024 * 1024 }, // 4 GiB; argon2 also needs m >= 8 * p
  timeCost: { min: 1, max: 1000 },
  parallelism: { min: 1, max: 255 },
} as const;
export const SCRYPT_LIMITS = {
  ln: { min: 1, max: 24 },
  r: { min: 1, max: 64 },
  p: { min: 1, max: 64 },
} as const;

/**
 * The scrypt settings of OWASP's Password Storage Cheat Sheet (N = 2^ln), of a similar minimal defence.
 * They bound the configured setting for new hashes (SPEC 4); a stored hash verifies at any setting
 * within SCRYPT_LIMITS and is upgraded at its next login.
 */
export const OWASP_SCRYPT_SETTINGS: readonly Readonly<ScryptParams>[] = Object.freeze([
  { ln: 17, r: 8, p: 1 },
  { ln: 16, r: 8, p: 2 },
  { ln: 15, r: 8, p: 3 },
  { ln: 14, r: 8, p: 5 },
  { ln: 13, r: 8, p: 10 },
]);

/** A setting at one of OWASP's listed scrypt settings, or at least as large as one of them in each of ln, r and p. */
export function isOwaspScryptSetting(params: ScryptParams): boolean {
  return OWASP_SCRYPT_SETTINGS.some((listed) => params.ln >= listed.ln && params.r >= listed.r && params.p >= listed.p);
}

export const formatScryptSetting = (params: ScryptParams): string => `ln=${params.ln},r=${params.r},p=${params.p}`;

const B64_RE = /^[A-Za-z0-9+/]*$/;
const DECIMAL_RE = /^(0|[1-9][0-9]{0,9})$/;

/** B64 of the PHC spec: standard alphabet, no padding. */
export function b64Encode(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64').replace(/=+$/, '');
}

/** Strict B64 decoding: rejects padding, foreign characters, impossible lengths and non-zero spare bits. */
export function b64Decode(text: string, what = 'value'): Buffer {
  if (!B64_RE.test(text)) throw new PhcFormatError(`${what} is not B64 (standard base64 alphabet, no padding)`);
  if (text.length % 4 === 1) throw new PhcFormatError(`${what} has an impossible B64 length`);
  const bytes = Buffer.from(text, 'base64');
  if (b64Encode(bytes) !== text) throw new PhcFormatError(`${what} is not canonical B64`);
  return bytes;
}

function decimal(text: string, name: string, range: { min: number; max: number }): number {
  if (!DECIMAL_RE.test(text)) {
    throw new PhcFormatError(`parameter ${name} must be a decimal integer without sign or leading zeros`);
  }
  const value = Number(text);
  if (value < range.min || value > range.max) {
    throw new PhcFormatError(`parameter ${name}=${value} is outside ${range.min}..${range.max}`);
  }
  return value;
}

/** Parses "a=1,b=2" requiring exactly the given names in the given order. */
function params<K extends string>(
  text: string,
  names: readonly K[],
  limits: Record<K, { min: number; max: number }>,
): Record<K, number> {
  const parts = text.split(',');
  const expected = names.map((n) => `${n}=…`).join(',');
  if (parts.length !== names.length) throw new PhcFormatError(`parameters must be exactly ${expected}`);
  const out = {} as Record<K, number>;
  names.forEach((name, i) => {
    const part = parts[i] as string;
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq) !== name) throw new PhcFormatError(`parameters must be exactly ${expected}`);
    out[name] = decimal(part.slice(eq + 1), name, limits[name]);
  });
  return out;
}

function bytesField(text: string, what: string, range: { min: number; max: number }): Buffer {
  const bytes = b64Decode(text, what);
  if (bytes.length < range.min || bytes.length > range.max) {
    throw new PhcFormatError(`${what} must be ${range.min} to ${range.max} bytes, got ${bytes.length}`);
  }
  return bytes;
}

/** Parses an argon2id or scrypt PHC string; throws PhcFormatError when it is anything else. */
export function parsePhc(phc: string): PhcHash {
  if (typeof phc !== 'string') throw new PhcFormatError('PHC string must be a string');
  if (phc.length > 512) throw new PhcFormatError('PHC string is too long');
  if (!phc.startsWith('$')) throw new PhcFormatError('PHC string must start with "$"');
  const fields = phc.split('$');
  const id = fields[1];
  if (id === 'argon2id') {
    if (fields.length !== 6) throw new PhcFormatError('argon2id PHC string must be $argon2id$v=19$m=…,t=…,p=…$salt$hash');
    const [, , version, paramText, salt, hash] = fields as [string, string, string, string, string, string];
    if (version !== 'v=19') throw new PhcFormatError(`unsupported argon2 version "${version}" (only v=19)`);
    const p = params(paramText, ['m', 't', 'p'] as const, {
      m: ARGON2ID_LIMITS.memoryCost,
      t: ARGON2ID_LIMITS.timeCost,
      p: ARGON2ID_LIMITS.parallelism,
    });
    if (p.m < 8 * p.p) throw new PhcFormatError('parameter m must be at least 8 * p');
    return {
      algorithm: 'argon2id',
      version: 19,
      params: { memoryCost: p.m, timeCost: p.t, parallelism: p.p },
      salt: bytesField(salt, 'salt', SALT_BYTES),
      hash: bytesField(hash, 'hash', HASH_BYTES),
    };
  }
  if (id === 'scrypt') {
    if (fields.length !== 5) throw new PhcFormatError('scrypt PHC string must be $scrypt$ln=…,r=…,p=…$salt$hash');
    const [, , paramText, salt, hash] = fields as [string, string, string, string, string];
    const p = params(paramText, ['ln', 'r', 'p'] as const, SCRYPT_LIMITS);
    return {
      algorithm: 'scrypt',
      params: { ln: p.ln, r: p.r, p: p.p },
      salt: bytesField(salt, 'salt', SALT_BYTES),
      hash: bytesField(hash, 'hash', HASH_BYTES),
    };
  }
  // Name the algorithm only when it looks like one: the string might be a misplaced password.
  const shown = /^[a-z0-9-]{1,32}$/.test(id ?? '') ? `"${id}"` : 'in the PHC string';
  throw new PhcFormatError(`unsupported algorithm ${shown} (argon2id or scrypt)`);
}

/** Formats a parsed hash back into its canonical PHC string (parsePhc(formatPhc(h)) equals h). */
export function formatPhc(h: PhcHash): string {
  const tail = `${b64Encode(h.salt)}$${b64Encode(h.hash)}`;
  if (h.algorithm === 'argon2id') {
    const { memoryCost, timeCost, parallelism } = h.params;
    return `$argon2id$v=${h.version}$m=${memoryCost},t=${timeCost},p=${parallelism}$${tail}`;
  }
  const { ln, r, p } = h.params;
  return `$scrypt$ln=${ln},r=${r},p=${p}$${tail}`;
}

/** True when the hash uses exactly this algorithm and these parameters (callers rehash otherwise). */
export function usesParams(
  h: PhcHash,
  algorithm: PhcAlgorithm,
  current: { argon2: Argon2idParams; scrypt: ScryptParams },
): boolean {
  if (h.algorithm !== algorithm) return false;
  if (h.algorithm === 'argon2id') {
    const c = current.argon2;
    return (
      h.params.memoryCost === c.memoryCost && h.params.timeCost === c.timeCost && h.params.parallelism === c.parallelism
    );
  }
  const c = current.scrypt;
  return h.params.ln === c.ln && h.params.r === c.r && h.params.p === c.p;
}

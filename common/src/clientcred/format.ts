/**
 * The clientcred wire format of SPEC section 5, in one place so that the sealer (client library and
 * gateway, node-forge) and the opener (core server, node:crypto) cannot drift apart. Everything here
 * is data and pure functions: no cipher, no key, no clock.
 */

/** Prefix of every sealed value; a new format gets a new prefix instead of a silent change. */
export const SEALED_PREFIX = 'v1.';
/** PBKDF2 salt = UTF-8 of this + clientId: the same secret gives every client its own key. */
export const KEY_SALT_PREFIX = 'svc/clientcred/v1|';
export const PBKDF2_ITERATIONS = 10_000;
export const KEY_BYTES = 32;
export const IV_BYTES = 12;
export const TAG_BYTES = 16;
export const NONCE_BYTES = 16;
/** base64url length of a 16-byte nonce without padding. */
export const NONCE_TEXT_LENGTH = 22;
/** A clientcred is accepted when `|now - ts| <= 300` (clock skew plus the time a login takes). */
export const CLIENTCRED_WINDOW_SECONDS = 300;
/**
 * How long a clientcred nonce is remembered. It must outlive every moment at which the same
 * clientcred could still pass the window check: a `ts` 300 s ahead is accepted until 600 s after it
 * was first seen; 900 s leaves a margin.
 */
export const NONCE_RETENTION_SECONDS = 900;
/** Secrets are 32 random bytes in base64url (`svc gen-secret`): at least 43 characters (SPEC 2). */
export const MIN_SECRET_LENGTH = 43;
/**
 * Upper bound on the text of one sealed value. A token (a JWT) is the largest thing sealed; the bound
 * keeps a hostile request from making the server decode and decrypt megabytes per parameter.
 */
export const MAX_SEALED_LENGTH = 16_384;

/** The request parameters a client with a secret must seal (SPEC section 5). */
export const SEALED_PARAM_NAMES = ['user', 'password', 'token', 'otp'] as const;
export type SealedParamName = (typeof SEALED_PARAM_NAMES)[number];

export function isSealedParamName(name: unknown): name is SealedParamName {
  return typeof name === 'string' && (SEALED_PARAM_NAMES as readonly string[]).includes(name);
}

/** The decrypted `clientcred`: `{"cid":…,"ts":…,"nonce":…}`. */
export interface ClientCredPlaintext {
  cid: string;
  /** Unix seconds at sealing time. */
  ts: number;
  /** 16 random bytes, base64url without padding; binds the sealed parameters to this request. */
  nonce: string;
}

/** UTF-8 of the PBKDF2 salt for `clientId`. */
export function keySalt(clientId: string): string {
  return KEY_SALT_PREFIX + clientId;
}

/** AAD of the clientcred: `svc/v1|<clientId>|clientcred`. */
export function clientcredAad(clientId: string): string {
  return `svc/v1|${clientId}|clientcred`;
}

/**
 * AAD of a sealed parameter: `svc/v1|<clientId>|<name>|<nonce>`. The name stops a sealed password
 * from being replayed as the user; the nonce ties the value to one login request.
 */
export function paramAad(clientId: string, name: SealedParamName, nonce: string): string {
  return `svc/v1|${clientId}|${name}|${nonce}`;
}

/** The canonical plaintext, keys in the order of the SPEC's test vector. */
export function serializeClientCred(plaintext: ClientCredPlaintext): string {
  return JSON.stringify({ cid: plaintext.cid, ts: plaintext.ts, nonce: plaintext.nonce });
}

/**
 * Strict parse of a clientcred plaintext: a JSON object with exactly `cid` (string), `ts` (safe
 * integer) and `nonce` (16 bytes, base64url). Anything else is `undefined`; the caller decides what
 * a malformed credential means.
 */
export function parseClientCred(text: string): ClientCredPlaintext | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 3 || !['cid', 'ts', 'nonce'].every((key) => keys.includes(key))) return undefined;
  const { cid, ts, nonce } = value as Record<string, unknown>;
  if (typeof cid !== 'string' || !Number.isSafeInteger(ts) || !isNonce(nonce)) return undefined;
  return { cid, ts: ts as number, nonce };
}

const BASE64URL_ALPHABET = /^[A-Za-z0-9_-]*$/;

/** base64url without padding (RFC 4648 section 5). */
export function base64urlEncode(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/**
 * Strict base64url decoding: alphabet only, no padding, and canonical (the bytes re-encode to the
 * same text). Node's own decoder skips bad characters silently; accepting that would give one value
 * many spellings, and a nonce many replay keys.
 */
export function base64urlDecode(text: string): Buffer | undefined {
  if (!BASE64URL_ALPHABET.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

/** A nonce is exactly 16 bytes in canonical base64url (22 characters). */
export function isNonce(text: unknown): text is string {
  if (typeof text !== 'string' || text.length !== NONCE_TEXT_LENGTH) return false;
  return base64urlDecode(text)?.length === NONCE_BYTES;
}

/** The three binary parts of a sealed value. */
export interface SealedParts {
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

/** `v1.` + base64url(IV ‖ ciphertext ‖ tag). */
export function formatSealed(parts: SealedParts): string {
  return SEALED_PREFIX + base64urlEncode(Buffer.concat([parts.iv, parts.ciphertext, parts.tag]));
}

/**
 * Splits a sealed value into its parts, or `undefined` when it is not `v1.` + canonical base64url of
 * at least IV (12) + tag (16) bytes. Typed `unknown` because it receives request parameters, which
 * a query parser may have turned into arrays or objects.
 */
export function parseSealed(sealed: unknown): SealedParts | undefined {
  if (typeof sealed !== 'string' || sealed.length > MAX_SEALED_LENGTH) return undefined;
  if (!sealed.startsWith(SEALED_PREFIX)) return undefined;
  const bytes = base64urlDecode(sealed.slice(SEALED_PREFIX.length));
  if (bytes === undefined || bytes.length < IV_BYTES + TAG_BYTES) return undefined;
  return {
    iv: bytes.subarray(0, IV_BYTES),
    ciphertext: bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES),
    tag: bytes.subarray(bytes.length - TAG_BYTES),
  };
}

/** Current unix time in whole seconds, the unit of `ts`. */
export function unixSeconds(milliseconds: number = Date.now()): number {
  return Math.floor(milliseconds / 1000);
}

/**
 * RFC 6238 time-based one-time codes as SPEC 15 fixes them (SHA-1, 6 digits, 30 s steps, one step
 * either side), computed by `otpauth` (RFC 4226 truncation is not ours to hand-roll).
 */
import { Secret, TOTP } from 'otpauth';

export const PERIOD_SECONDS = 30;
const DIGITS = 6;
const ALGORITHM = 'SHA1';
const CODE = /^[0-9]{6}$/;

/** A new 160-bit secret, base32 (RFC 4648, no padding), as authenticator apps take it. */
export function newSecret(): string {
  // otpauth draws it from the platform's CSPRNG (crypto.getRandomValues).
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://` URI an app scans (SPEC 15's parameter order; the label is `svc:` and the subject). */
export function otpauthUri(secret: string, account: string): string {
  return `otpauth://totp/${encodeURIComponent(`svc:${account}`)}?secret=${secret}&issuer=svc&algorithm=${ALGORITHM}&digits=${DIGITS}&period=${PERIOD_SECONDS}`;
}

/** The code of `secret` at `timestamp` (ms): for tests and the RFC's vectors. */
export function codeAt(secret: string, timestamp: number, options: { algorithm?: 'SHA1' | 'SHA256' | 'SHA512'; digits?: number } = {}): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: options.algorithm ?? ALGORITHM, digits: options.digits ?? DIGITS, period: PERIOD_SECONDS, timestamp });
}

/**
 * The time step whose code `code` is, within one step of `now` (ms), or undefined. The caller then
 * accepts it only if it is later than the last step accepted for the subject (RFC 6238 §5.2).
 */
export function matchingStep(secret: string, code: string, now: number): number | undefined {
  if (!CODE.test(code)) return undefined;
  const delta = TOTP.validate({ token: code, secret: Secret.fromBase32(secret), algorithm: ALGORITHM, digits: DIGITS, period: PERIOD_SECONDS, timestamp: now, window: 1 });
  return delta === null ? undefined : TOTP.counter({ period: PERIOD_SECONDS, timestamp: now }) + delta;
}

/**
 * The second factor's secret at rest (SPEC 15): AES-256-GCM under the key `otp.key`, bound by its
 * additional data to the subject it belongs to, so a row copied onto another subject does not open.
 * `v1.` + base64url(12-byte IV ‖ ciphertext ‖ 16-byte tag).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const aad = (contextId: string, uniqueId: string) => Buffer.from(`svc/otp/v1|${contextId}|${uniqueId}`, 'utf8');

export function sealSecret(key: Buffer, contextId: string, uniqueId: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad(contextId, uniqueId));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
}

/** The secret, or an Error when the value is not one of ours (another key, another subject, altered). */
export function openSecret(key: Buffer, contextId: string, uniqueId: string, sealed: string): string {
  if (!sealed.startsWith('v1.')) throw new Error('not a sealed second-factor secret');
  const raw = Buffer.from(sealed.slice(3), 'base64url');
  if (raw.length < 12 + 16 + 1) throw new Error('not a sealed second-factor secret');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12)).setAAD(aad(contextId, uniqueId));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
}

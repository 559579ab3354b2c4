/**
 * SCIM provisioning tokens (SPEC 14): `svcscim_` + 32 random bytes in base64url (43 characters).
 * The configuration keeps only each token's SHA-256 (hex): a token is 256 random bits, so a fast
 * hash is right and the file holds nothing usable. A presented token is hashed and compared with
 * every configured hash in constant time, each comparison made whatever the others gave.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ScimClientConfig } from '../config/types';

export const SCIM_TOKEN_PREFIX = 'svcscim_';
const TOKEN = /^svcscim_[A-Za-z0-9_-]{43}$/;

/** A new token and the hash the configuration holds. */
export function generateScimToken(): { token: string; sha256: string } {
  const token = `${SCIM_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { token, sha256: scimTokenSha256(token) };
}

export function scimTokenSha256(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The bearer token of an Authorization header (`Bearer <token>`, the scheme in any case), if it has the token's shape. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return match && TOKEN.test(match[1]) ? match[1] : undefined;
}

/** The client whose token this is; every configured hash is compared, in constant time. */
export function scimClientOf(clients: readonly ScimClientConfig[], token: string): ScimClientConfig | undefined {
  const presented = createHash('sha256').update(token, 'utf8').digest();
  let found: ScimClientConfig | undefined;
  for (const client of clients) {
    const expected = Buffer.from(client.tokenSha256, 'hex');
    if (expected.length === presented.length && timingSafeEqual(expected, presented) && !found) found = client;
  }
  return found;
}

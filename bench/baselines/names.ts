/** Names of the baseline rows other scenarios compare against. */
export const BARE_HTTP_GET = 'bare node:http GET';
export const BARE_EXPRESS_GET = 'bare express GET';
export const BARE_EXPRESS_HEAD = 'bare express HEAD (keep-alive loop)';
export const BARE_EXPRESS_HEAD_UNDICI = 'bare express HEAD (undici loop, reconnects)';
export const BARE_HASH = 'bare argon2id verify (m=19456 t=2 p=1)';

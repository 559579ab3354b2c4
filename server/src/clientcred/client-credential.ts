/**
 * The server's opener of clientcred and of the sealed `user`, `password` and `token` parameters
 * (SPEC section 5), with node:crypto. No HTTP here: the login flow hands in the raw parameters and
 * gets back plaintext or an InvalidClient.
 *
 * Every refusal is the same InvalidClient to the outside (one generic detail, so a prober learns
 * nothing about which check failed); the failed check is named only in `reason`, for the audit line.
 */
import { createDecipheriv } from 'node:crypto';
import { InvalidClient } from '../../../common/src/errors';
import {
  CLIENTCRED_WINDOW_SECONDS,
  KEY_BYTES,
  NONCE_RETENTION_SECONDS,
  TAG_BYTES,
  clientcredAad,
  isSealedParamName,
  paramAad,
  parseClientCred,
  parseSealed,
  type SealedParamName,
  type SealedParts,
} from '../../../common/src/clientcred/format';
import type { NonceStore } from '../../../common/src/nonce-store';

/** Stable audit reasons; never shown to the client. */
export type ClientCredFailureReason = 'malformed' | 'tag_mismatch' | 'client_mismatch' | 'stale' | 'replayed' | 'param_invalid';

/** An InvalidClient (401 `invalid_client`) that tells the audit log, and only it, what failed. */
export class ClientCredentialRejected extends InvalidClient {
  readonly reason: ClientCredFailureReason;
  /** The parameter that did not open, for `param_invalid`. */
  readonly param?: SealedParamName;

  constructor(reason: ClientCredFailureReason, param?: SealedParamName) {
    super('The client could not be validated.');
    this.reason = reason;
    this.param = param;
  }
}

type Opened = { ok: true; plaintext: string } | { ok: false; reason: 'malformed' | 'tag_mismatch' };

/** Fatal: a sealed value whose plaintext is not UTF-8 is refused, not repaired with U+FFFD. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Opens `v1.` + base64url(IV ‖ ciphertext ‖ tag) under `aad`, trying every key of the client (two
 * during a secret rotation). Throws ClientCredentialRejected with reason `malformed` (not the format)
 * or `tag_mismatch` (no key authenticates it). A non-string `sealed` from a loosely typed caller is
 * `malformed` as well. An empty key list or a key that is not 32 bytes is a caller mistake (TypeError).
 */
export function openSealed(keys: readonly Buffer[], sealed: string, aad: string): string {
  const opened = openWithKeys(keys, sealed, aad);
  if (!opened.ok) throw new ClientCredentialRejected(opened.reason);
  return opened.plaintext;
}

function openWithKeys(keys: readonly Buffer[], sealed: unknown, aad: string): Opened {
  if (keys.length === 0 || keys.some((key) => !Buffer.isBuffer(key) || key.length !== KEY_BYTES)) {
    throw new TypeError('openSealed: keys must be one or more 32-byte Buffers');
  }
  const parts = parseSealed(sealed);
  if (parts === undefined) return { ok: false, reason: 'malformed' };
  const aadBytes = Buffer.from(aad, 'utf8');
  for (const key of keys) {
    const plaintext = decrypt(key, parts, aadBytes);
    if (plaintext === undefined) continue;
    try {
      return { ok: true, plaintext: utf8.decode(plaintext) };
    } catch {
      return { ok: false, reason: 'malformed' };
    } finally {
      plaintext.fill(0);
    }
  }
  return { ok: false, reason: 'tag_mismatch' };
}

/**
 * AES-256-GCM decryption whose output is released only after `final()` has verified the tag (OpenSSL
 * compares it in constant time). Until then the bytes are unauthenticated: on failure they are wiped
 * and never returned.
 */
function decrypt(key: Buffer, parts: SealedParts, aad: Buffer): Buffer | undefined {
  const decipher = createDecipheriv('aes-256-gcm', key, parts.iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(parts.tag);
  const unverified = decipher.update(parts.ciphertext);
  try {
    return Buffer.concat([unverified, decipher.final()]);
  } catch {
    return undefined;
  } finally {
    unverified.fill(0);
  }
}

export interface OpenClientCredentialInput {
  /** The `clientid` of the request, already resolved to a configured client with a secret. */
  clientId: string;
  /** The client's derived keys (`deriveClientKeys`), first the sealing one. */
  keys: readonly Buffer[];
  /** The raw `clientcred` request parameter; anything but a sealed string is `malformed`. */
  clientcred: unknown;
  /** Unix seconds. */
  now: number;
  /** Where nonces are remembered; shared by all instances in a multi-instance deployment. */
  nonces: NonceStore;
}

/**
 * A clientcred that has opened, names this client, is inside the 300 s window and was never seen
 * before. It is the only way to open the request's sealed parameters, so they cannot be opened
 * against an unchecked nonce.
 */
export class ClientCredential {
  readonly clientId: string;
  /** The clientcred's nonce: it binds the sealed parameters to this one request. */
  readonly nonce: string;
  /** The clientcred's `ts` (unix seconds). */
  readonly issuedAt: number;
  readonly #keys: readonly Buffer[];

  private constructor(clientId: string, nonce: string, issuedAt: number, keys: readonly Buffer[]) {
    this.clientId = clientId;
    this.nonce = nonce;
    this.issuedAt = issuedAt;
    this.#keys = keys;
  }

  /**
   * Checks in this order: opens (`malformed`, `tag_mismatch`), strict JSON (`malformed`), `cid`
   * (`client_mismatch`), window (`stale`), and only then the nonce (`replayed`), so that forged or
   * expired credentials never consume space in the nonce store. A full nonce store rejects with its
   * own error (ServiceUnavailable), not InvalidClient.
   */
  static async open(input: OpenClientCredentialInput): Promise<ClientCredential> {
    const { clientId, keys, clientcred, now, nonces } = input;
    if (!Number.isFinite(now)) throw new TypeError('ClientCredential.open: now must be unix seconds');
    const opened = openWithKeys(keys, clientcred, clientcredAad(clientId));
    if (!opened.ok) throw new ClientCredentialRejected(opened.reason);
    const plaintext = parseClientCred(opened.plaintext);
    if (plaintext === undefined) throw new ClientCredentialRejected('malformed');
    if (plaintext.cid !== clientId) throw new ClientCredentialRejected('client_mismatch');
    if (Math.abs(now - plaintext.ts) > CLIENTCRED_WINDOW_SECONDS) throw new ClientCredentialRejected('stale');
    const firstUse = await nonces.rememberOnce(`clientcred|${clientId}|${plaintext.nonce}`, NONCE_RETENTION_SECONDS);
    if (!firstUse) throw new ClientCredentialRejected('replayed');
    return new ClientCredential(clientId, plaintext.nonce, plaintext.ts, keys);
  }

  /**
   * Opens the request's sealed `user`, `password` or `token` with AAD
   * `svc/v1|<clientId>|<name>|<nonce>`; a value sealed for another parameter or another request fails
   * with `param_invalid`. An unknown `name` is a caller mistake (TypeError).
   */
  openParam(name: SealedParamName, sealedValue: unknown): string {
    if (!isSealedParamName(name)) throw new TypeError(`openParam: "${String(name)}" is not a sealed parameter`);
    const opened = openWithKeys(this.#keys, sealedValue, paramAad(this.clientId, name, this.nonce));
    if (!opened.ok) throw new ClientCredentialRejected('param_invalid', name);
    return opened.plaintext;
  }
}

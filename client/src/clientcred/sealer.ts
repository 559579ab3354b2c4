/**
 * The client's side of SPEC section 5: seals `clientcred` and the `user`, `password` and `token`
 * parameters for a client with a shared secret. The crypto is node-forge only (the SPEC names it for
 * every sealer: the client library and the gateway), so the client library needs no node:crypto.
 *
 * node-forge works on "binary strings" (one char per byte), so every text goes through
 * `forge.util.encodeUtf8` first; forgetting that would seal Latin-1 and break every non-ASCII user.
 *
 * @example
 *   const sealer = new ClientSealer('svc-api', secret);
 *   const { clientcred, nonce } = sealer.sealClientCred();
 *   const body = { clientid: 'svc-api', clientcred,
 *     user: sealer.sealParam('user', 'alice', nonce), password: sealer.sealParam('password', pw, nonce) };
 */
import forge from 'node-forge';
import {
  IV_BYTES,
  KEY_BYTES,
  MIN_SECRET_LENGTH,
  NONCE_BYTES,
  PBKDF2_ITERATIONS,
  base64urlEncode,
  clientcredAad,
  formatSealed,
  isNonce,
  isSealedParamName,
  keySalt,
  paramAad,
  serializeClientCred,
  unixSeconds,
  type SealedParamName,
} from '../../../common/src/clientcred/format';

/** The client key as a forge binary string (32 bytes): PBKDF2-HMAC-SHA256 per SPEC section 5. */
export function deriveSealingKey(secret: string, clientId: string): string {
  if (typeof clientId !== 'string' || clientId.length === 0) throw new TypeError('ClientSealer: clientId must be a non-empty string');
  if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) {
    throw new TypeError(`ClientSealer: the secret must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  const password = utf8Bytes(secret, 'secret');
  const salt = utf8Bytes(keySalt(clientId), 'clientId');
  return forge.pkcs5.pbkdf2(password, salt, PBKDF2_ITERATIONS, KEY_BYTES, forge.md.sha256.create());
}

/**
 * Derived keys by (clientId, secret): PBKDF2 costs tens of milliseconds of blocked event loop in
 * node-forge, and a process that opens many connections for one client (the gateway logs in once
 * per portal user) should pay it once. Few clients per process, so a small bound suffices.
 */
const derivedKeys = new Map<string, string>();
const MAX_DERIVED_KEYS = 64;

function cachedSealingKey(secret: string, clientId: string): string {
  const id = `${clientId}\u0000${secret}`;
  let key = derivedKeys.get(id);
  if (key === undefined) {
    key = deriveSealingKey(secret, clientId);
    if (derivedKeys.size >= MAX_DERIVED_KEYS) derivedKeys.delete(derivedKeys.keys().next().value!);
    derivedKeys.set(id, key);
  }
  return key;
}

export interface SealClientCredOptions {
  /** Unix seconds; defaults to the current time. */
  now?: number;
  /** 16 bytes base64url; defaults to fresh random bytes. Inject only to reproduce test vectors. */
  nonce?: string;
  /** 12 bytes; defaults to fresh random bytes. Inject only for test vectors: a repeated IV under one key breaks GCM. */
  iv?: Uint8Array;
}

export interface SealedClientCred {
  /** The value of the `clientcred` request parameter. */
  clientcred: string;
  /** Pass it to `sealParam` for every parameter of the same request. */
  nonce: string;
}

/** Holds one client's key (derived once, at construction: PBKDF2 is slow on purpose). */
export class ClientSealer {
  readonly clientId: string;
  readonly #key: string;

  /** With two secrets during a rotation, give the first one: it is the one that seals. */
  constructor(clientId: string, secret: string) {
    this.#key = cachedSealingKey(secret, clientId);
    this.clientId = clientId;
  }

  /** A fresh `clientcred` (`{"cid","ts","nonce"}`) for one login request, with its nonce. */
  sealClientCred(options: SealClientCredOptions = {}): SealedClientCred {
    const ts = options.now ?? unixSeconds();
    if (!Number.isSafeInteger(ts)) throw new TypeError('sealClientCred: now must be whole unix seconds');
    const nonce = options.nonce ?? base64urlEncode(randomBytes(NONCE_BYTES));
    if (!isNonce(nonce)) throw new TypeError('sealClientCred: nonce must be 16 bytes in base64url');
    const plaintext = serializeClientCred({ cid: this.clientId, ts, nonce });
    return { clientcred: this.#seal(plaintext, clientcredAad(this.clientId), options.iv), nonce };
  }

  /** Seals `user`, `password`, `token` or `otp` for the request whose clientcred carries `nonce`. */
  sealParam(name: SealedParamName, value: string, nonce: string, iv?: Uint8Array): string {
    if (!isSealedParamName(name)) throw new TypeError(`sealParam: "${String(name)}" is not a sealed parameter`);
    if (typeof value !== 'string') throw new TypeError('sealParam: value must be a string');
    if (!isNonce(nonce)) throw new TypeError('sealParam: nonce must be the clientcred nonce (16 bytes base64url)');
    return this.#seal(value, paramAad(this.clientId, name, nonce), iv);
  }

  /** AES-256-GCM with a 128-bit tag; output `v1.` + base64url(IV ‖ ciphertext ‖ tag). */
  #seal(plaintext: string, aad: string, iv: Uint8Array = randomBytes(IV_BYTES)): string {
    if (!(iv instanceof Uint8Array) || iv.length !== IV_BYTES) throw new TypeError('ClientSealer: iv must be 12 bytes');
    const cipher = forge.cipher.createCipher('AES-GCM', this.#key);
    cipher.start({ iv: forge.util.binary.raw.encode(iv), additionalData: utf8Bytes(aad, 'aad'), tagLength: 128 });
    cipher.update(forge.util.createBuffer(utf8Bytes(plaintext, 'value'), 'raw'));
    if (!cipher.finish()) throw new Error('ClientSealer: AES-GCM encryption failed');
    return formatSealed({
      iv: Buffer.from(iv),
      ciphertext: Buffer.from(cipher.output.getBytes(), 'binary'),
      tag: Buffer.from(cipher.mode.tag.getBytes(), 'binary'),
    });
  }
}

/** Random bytes from forge's CSPRNG (seeded from the platform's). */
function randomBytes(count: number): Uint8Array {
  return forge.util.binary.raw.decode(forge.random.getBytesSync(count));
}

/** UTF-8 as a forge binary string; a string with a lone surrogate has no UTF-8 form and is refused. */
function utf8Bytes(text: string, what: string): string {
  try {
    return forge.util.encodeUtf8(text);
  } catch {
    throw new TypeError(`ClientSealer: ${what} is not well-formed Unicode`);
  }
}

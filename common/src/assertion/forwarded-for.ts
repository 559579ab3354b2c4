/**
 * The visitor's address as the gateway vouches for it to a core (SPEC section 9, "The visitor's
 * address"): `X-Svc-Forwarded-For: <clientId>.<b64u address>.<ts>.<sig>`, where
 * sig = base64url(HMAC-SHA256(K, everything before `.<sig>` + `|` + METHOD + `|` + the core path,
 * context root included, and query)) and K = HKDF-SHA256(the gateway client's secret as UTF-8,
 * empty salt, info `svc forwarded-for v1`, 32 bytes).
 *
 * An address cannot tell the gateway from any other local process (any process may bind any
 * loopback address), so the trust is a key: only a holder of the client's secret can say whose
 * failures a request counts against. Binding method and path keeps a captured header to one request;
 * the 60 s window bounds how long. It lives in `common` because two processes share it: the gateway
 * signs, the core verifies. The header is parsed from the right because client ids may hold dots.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { MIN_SECRET_LENGTH, base64urlDecode, base64urlEncode, unixSeconds } from '../clientcred/format';

export const FORWARDED_FOR_HEADER = 'X-Svc-Forwarded-For';
/** The header is accepted when `|now - ts| <= 60`. */
export const FORWARDED_FOR_WINDOW_SECONDS = 60;
const KEY_INFO = 'svc forwarded-for v1';
const KEY_BYTES = 32;
const SIG_BYTES = 32;
/** A client id as the core's configuration allows it. */
const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Whole unix seconds without sign or leading zeros: one spelling per instant. */
const TIMESTAMP = /^(0|[1-9][0-9]{0,15})$/;
const METHOD = /^[A-Za-z-]{1,32}$/;
/** The longest textual IP address. */
const MAX_ADDRESS_LENGTH = 45;
/** Bounds the work an unauthenticated header can cause before the HMAC is computed. */
const MAX_HEADER_LENGTH = 256;

export type ForwardedForFailureReason = 'malformed' | 'unknown_client' | 'bad_signature' | 'stale';

/**
 * K for one secret of the gateway's client. HKDF is cheap, but a core verifies on every gateway
 * request: derive once per configuration (the core keeps the keys with its clients).
 */
export function forwardedForKey(secret: string): Buffer {
  if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) throw new TypeError('forwardedForKey: secret too short');
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), KEY_INFO, KEY_BYTES));
}

export interface SignForwardedForInput {
  clientId: string;
  /** forwardedForKey(the client's first secret). */
  key: Buffer;
  /** The visitor's IP address (IPv4 or IPv6 text). */
  address: string;
  /** HTTP method of the request to the core. */
  method: string;
  /** The core path with its context root, and the query, exactly as sent: `/svc/login`, `/svc/resources/session?x=1`. */
  pathAndQuery: string;
  /** Unix seconds; defaults to now. */
  now?: number;
}

/**
 * The `X-Svc-Forwarded-For` value for one request to a core. Bad input is a caller mistake (TypeError).
 *
 * @example
 *   headers['x-svc-forwarded-for'] = signForwardedFor({ clientId: 'portal-gateway', key,
 *     address: visitorAddress, method: 'POST', pathAndQuery: '/svc/login' });
 */
export function signForwardedFor(input: SignForwardedForInput): string {
  const { clientId, key, address, method, pathAndQuery } = input;
  if (typeof clientId !== 'string' || !CLIENT_ID.test(clientId)) throw new TypeError('signForwardedFor: bad client id');
  if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) throw new TypeError('signForwardedFor: key must be forwardedForKey(secret)');
  if (!isAddress(address)) throw new TypeError('signForwardedFor: address must be an IPv4 or IPv6 address');
  const ts = input.now ?? unixSeconds();
  if (!TIMESTAMP.test(String(ts))) throw new TypeError('signForwardedFor: now must be whole unix seconds');
  if (typeof method !== 'string' || !METHOD.test(method) || typeof pathAndQuery !== 'string' || !pathAndQuery.startsWith('/')) {
    throw new TypeError('signForwardedFor: bad method or path');
  }
  const signed = `${clientId}.${base64urlEncode(Buffer.from(address, 'utf8'))}.${ts}`;
  return `${signed}.${mac(key, signed, method, pathAndQuery).toString('base64url')}`;
}

export interface VerifyForwardedForOptions {
  method: string;
  /** The request target as the core received it: path with context root, and query. */
  pathAndQuery: string;
  /** Unix seconds. */
  now: number;
  /**
   * The keys of a client that may vouch for addresses (one per secret: either verifies during a
   * rotation), or undefined when the client is unknown or may not (no `allowPrincipalAssertion`).
   */
  keys: (clientId: string) => readonly Buffer[] | undefined;
}

export type ForwardedForResult =
  | { ok: true; clientId: string; address: string }
  | { ok: false; reason: ForwardedForFailureReason; clientId?: string };

/**
 * Verifies one header. Order: strict parse (`malformed`), client (`unknown_client`), signature in
 * constant time (`bad_signature`), window (`stale`). Never throws for bad input: the core ignores a
 * header that does not verify (and says so in its audit), it does not refuse the request.
 */
export function verifyForwardedFor(header: string, options: VerifyForwardedForOptions): ForwardedForResult {
  const parsed = parse(header);
  if (parsed === undefined) return { ok: false, reason: 'malformed' };
  const { clientId } = parsed;
  const keys = options.keys(clientId);
  if (keys === undefined || keys.length === 0) return { ok: false, reason: 'unknown_client', clientId };
  if (typeof options.method !== 'string' || !METHOD.test(options.method) || typeof options.pathAndQuery !== 'string') return { ok: false, reason: 'malformed', clientId };
  // Every key is tried, so the time taken does not say which one matched.
  let matches = false;
  for (const key of keys) matches = timingSafeEqual(mac(key, parsed.signed, options.method, options.pathAndQuery), parsed.sig) || matches;
  if (!matches) return { ok: false, reason: 'bad_signature', clientId };
  if (!(Math.abs(options.now - parsed.ts) <= FORWARDED_FOR_WINDOW_SECONDS)) return { ok: false, reason: 'stale', clientId };
  return { ok: true, clientId, address: parsed.address };
}

interface ParsedForwardedFor {
  clientId: string;
  address: string;
  ts: number;
  /** Everything before `.<sig>`. */
  signed: string;
  sig: Buffer;
}

/** From the right: sig, ts, address; what is left is the client id, dots and all. */
function parse(header: unknown): ParsedForwardedFor | undefined {
  if (typeof header !== 'string' || header.length > MAX_HEADER_LENGTH) return undefined;
  const sigDot = header.lastIndexOf('.');
  const tsDot = header.lastIndexOf('.', sigDot - 1);
  const addressDot = sigDot > 0 && tsDot > 0 ? header.lastIndexOf('.', tsDot - 1) : -1;
  if (addressDot <= 0) return undefined;
  const clientId = header.slice(0, addressDot);
  const addressPart = header.slice(addressDot + 1, tsDot);
  const tsPart = header.slice(tsDot + 1, sigDot);
  const sig = base64urlDecode(header.slice(sigDot + 1));
  if (!CLIENT_ID.test(clientId) || !TIMESTAMP.test(tsPart) || sig === undefined || sig.length !== SIG_BYTES) return undefined;
  const addressBytes = base64urlDecode(addressPart);
  const address = addressBytes?.toString('utf8');
  if (address === undefined || !isAddress(address) || !Buffer.from(address, 'utf8').equals(addressBytes!)) return undefined;
  const ts = Number(tsPart);
  if (!Number.isSafeInteger(ts)) return undefined;
  return { clientId, address, ts, signed: header.slice(0, sigDot), sig };
}

function isAddress(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_ADDRESS_LENGTH && isIP(value) !== 0;
}

/** HMAC-SHA256(K, signed + `|` + METHOD + `|` + pathAndQuery), 32 bytes. */
function mac(key: Buffer, signed: string, method: string, pathAndQuery: string): Buffer {
  return createHmac('sha256', key).update(`${signed}|${method.toUpperCase()}|${pathAndQuery}`, 'utf8').digest();
}

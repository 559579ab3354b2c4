/**
 * The portal's principal assertion of SPEC section 9 (version 2):
 * `X-Svc-Principal: v2.<portalId>.<user>.<visitor>.<address>.<ts>.<nonce>.<sig>`, where `user` is
 * base64url of `contextId/uniqueId` (empty for an anonymous visitor), `visitor` base64url of the
 * portal's handle for the visitor's portal session, `address` base64url of the visitor's IP address
 * (empty when unknown), and sig = base64url(HMAC-SHA256(portal secret as UTF-8, everything before
 * `.<sig>` + `|` + METHOD + `|` + path and query as sent to the gateway)).
 *
 * It lives in `common` because two processes share it: the portal signs, the gateway verifies.
 * Binding method and path means a captured header is good for one request only, and the nonce makes
 * even that request unrepeatable. The user names its context so that a name registered in one
 * context can never be read as the same name in another; v1 (a bare uniqueId) is refused.
 */
import { createHmac, randomFillSync, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { InvalidAssertion } from '../errors';
import type { NonceStore } from '../nonce-store';
import { MIN_SECRET_LENGTH, NONCE_BYTES, base64urlDecode, base64urlEncode, isNonce, unixSeconds } from '../clientcred/format';
import { formatPrincipalName, parsePrincipalName, type PrincipalName } from '../principal-name';

export { formatPrincipalName, parsePrincipalName, type PrincipalName } from '../principal-name';

export const ASSERTION_HEADER = 'X-Svc-Principal';
export const ASSERTION_VERSION = 'v2';
/** An assertion is accepted when `|now - ts| <= 60`. */
export const ASSERTION_WINDOW_SECONDS = 60;
/** Longer than any moment the window still accepts the assertion (ts 60 s ahead, plus 60 s). */
export const ASSERTION_NONCE_RETENTION_SECONDS = 180;
const MAX_VISITOR_BYTES = 128;
/** Bounds the work an unauthenticated header can cause before the HMAC is even computed. */
const MAX_HEADER_LENGTH = 4096;
const PORTAL_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Whole unix seconds without sign or leading zeros: one spelling per instant. */
const TIMESTAMP = /^(0|[1-9][0-9]{0,15})$/;
const METHOD = /^[A-Za-z-]{1,32}$/;
const SIG_BYTES = 32;
/** The longest textual IP address (an IPv4-mapped IPv6 address with a zone is shorter). */
const MAX_ADDRESS_LENGTH = 45;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Nonces are cut from a pool of random bytes filled 256 nonces at a time: a portal signs one per
 * gateway request, and a call into the system's generator for each cost more than the HMAC.
 * Every byte is used once (node's randomUUID keeps such a pool too).
 */
const noncePool = Buffer.alloc(NONCE_BYTES * 256);
let noncePoolOffset = noncePool.length;

function freshNonce(): Buffer {
  if (noncePoolOffset === noncePool.length) {
    randomFillSync(noncePool);
    noncePoolOffset = 0;
  }
  const nonce = Buffer.from(noncePool.subarray(noncePoolOffset, noncePoolOffset + NONCE_BYTES));
  noncePoolOffset += NONCE_BYTES;
  return nonce;
}

export type PrincipalAssertionFailureReason = 'malformed' | 'unknown_portal' | 'bad_signature' | 'stale' | 'replayed';

/** An InvalidAssertion (401 `invalid_assertion`) whose `reason` is for the audit line only. */
export class PrincipalAssertionRejected extends InvalidAssertion {
  readonly reason: PrincipalAssertionFailureReason;
  /** The claimed portal, once the header parsed: audit lines name who tried. */
  readonly portalId?: string;

  constructor(reason: PrincipalAssertionFailureReason, portalId?: string) {
    super('The request does not carry a valid principal assertion.');
    this.reason = reason;
    this.portalId = portalId;
  }
}

export interface SignPrincipalAssertionInput {
  portalId: string;
  /** The portal's secret (at least 43 characters), used as UTF-8 bytes. */
  secret: string;
  /** The portal user's svc subject; absent or null for an anonymous visitor. */
  user?: PrincipalName | null;
  /** The portal's session handle for this visitor: 1-128 bytes (a string is taken as UTF-8). */
  visitor: string | Uint8Array;
  /** The visitor's IP address as the portal saw it (IPv4 or IPv6 text); absent or null when unknown. */
  address?: string | null;
  /** HTTP method of the request to the gateway (upper-cased). */
  method: string;
  /** Path and query exactly as sent to the gateway, e.g. `/gw/api/session?x=1`. */
  pathAndQuery: string;
  /** Unix seconds; defaults to now. */
  now?: number;
  /** 16 bytes base64url; defaults to random. Inject only to reproduce the test vectors. */
  nonce?: string;
}

/**
 * The `X-Svc-Principal` header value for one request. Bad input is a caller mistake (TypeError).
 *
 * @example
 *   headers[ASSERTION_HEADER] = signPrincipalAssertion({ portalId: 'demo-portal', secret,
 *     user: { contextId: 'employees', uniqueId: 'bob' }, visitor: portalSessionHandle,
 *     address: browserAddress, method: 'GET', pathAndQuery: '/gw/api/session' });
 */
export function signPrincipalAssertion(input: SignPrincipalAssertionInput): string {
  const { portalId, secret, method, pathAndQuery } = input;
  if (typeof portalId !== 'string' || !PORTAL_ID.test(portalId)) throw new TypeError('signPrincipalAssertion: portalId must match [A-Za-z0-9_-]{1,64}');
  if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) throw new TypeError('signPrincipalAssertion: secret too short');
  const user = input.user ?? null;
  // formatPrincipalName throws the TypeError for a name that is not `contextId/uniqueId`.
  const userPart = user === null ? '' : base64urlEncode(Buffer.from(formatPrincipalName(user), 'utf8'));
  const visitor = typeof input.visitor === 'string' ? Buffer.from(input.visitor, 'utf8') : input.visitor;
  if (!(visitor instanceof Uint8Array) || visitor.length < 1 || visitor.length > MAX_VISITOR_BYTES) throw new TypeError('signPrincipalAssertion: visitor must be 1-128 bytes');
  const address = input.address ?? null;
  if (address !== null && !isAddress(address)) throw new TypeError('signPrincipalAssertion: address must be an IPv4 or IPv6 address');
  const ts = input.now ?? unixSeconds();
  if (!TIMESTAMP.test(String(ts))) throw new TypeError('signPrincipalAssertion: now must be whole unix seconds');
  const nonce = input.nonce ?? base64urlEncode(freshNonce());
  if (!isNonce(nonce)) throw new TypeError('signPrincipalAssertion: nonce must be 16 bytes in base64url');
  if (typeof method !== 'string' || !METHOD.test(method) || typeof pathAndQuery !== 'string' || !pathAndQuery.startsWith('/')) {
    throw new TypeError('signPrincipalAssertion: bad method or path');
  }

  const addressPart = address === null ? '' : base64urlEncode(Buffer.from(address, 'utf8'));
  const signed = [ASSERTION_VERSION, portalId, userPart, base64urlEncode(visitor), addressPart, String(ts), nonce].join('.');
  return `${signed}.${mac(secret, signed, method, pathAndQuery).toString('base64url')}`;
}

export interface VerifyPrincipalAssertionOptions {
  method: string;
  /** Path and query as received by the gateway (`req.originalUrl`). */
  pathAndQuery: string;
  /** Unix seconds. */
  now: number;
  /** The secrets of a configured portal (one, or two during a rotation), undefined when unknown. */
  portals: (portalId: string) => readonly string[] | undefined;
  /** Shared by every gateway instance when there are several. */
  nonces: NonceStore;
}

export interface VerifiedPrincipal {
  portalId: string;
  /** The portal user's svc subject, or null for an anonymous visitor. */
  user: PrincipalName | null;
  /**
   * The visitor handle as carried: canonical base64url of its 1-128 bytes. Kept encoded because the
   * handle is opaque bytes (not necessarily text) and the encoded form is a safe cache key and log field.
   */
  visitor: string;
  /** The visitor's IP address as the portal saw it (checked to be an IP address), or null when unknown. */
  address: string | null;
}

/**
 * Verifies the header of one gateway request. Order: strict parse (`malformed`), portal
 * (`unknown_portal`), signature in constant time (`bad_signature`), window (`stale`), and only then
 * the nonce (`replayed`), so that unauthenticated headers never consume nonce-store space.
 */
export async function verifyPrincipalAssertion(header: string | undefined, options: VerifyPrincipalAssertionOptions): Promise<VerifiedPrincipal> {
  if (!Number.isFinite(options.now)) throw new TypeError('verifyPrincipalAssertion: now must be unix seconds');
  const parsed = parse(header);
  if (parsed === undefined) throw new PrincipalAssertionRejected('malformed');
  const { portalId } = parsed;
  const secrets = options.portals(portalId);
  if (secrets === undefined || secrets.length === 0) throw new PrincipalAssertionRejected('unknown_portal', portalId);
  if (!METHOD.test(options.method) || typeof options.pathAndQuery !== 'string') throw new PrincipalAssertionRejected('malformed', portalId);
  const signatureMatches = secrets.some((secret) =>
    timingSafeEqual(mac(secret, parsed.signed, options.method, options.pathAndQuery), parsed.sig),
  );
  if (!signatureMatches) throw new PrincipalAssertionRejected('bad_signature', portalId);
  if (Math.abs(options.now - parsed.ts) > ASSERTION_WINDOW_SECONDS) throw new PrincipalAssertionRejected('stale', portalId);
  const firstUse = await options.nonces.rememberOnce(`assertion|${portalId}|${parsed.nonce}`, ASSERTION_NONCE_RETENTION_SECONDS);
  if (!firstUse) throw new PrincipalAssertionRejected('replayed', portalId);
  return { portalId, user: parsed.user, visitor: parsed.visitor, address: parsed.address };
}

interface ParsedAssertion {
  portalId: string;
  user: PrincipalName | null;
  visitor: string;
  address: string | null;
  ts: number;
  nonce: string;
  /** Everything before `.<sig>`: the signed text. */
  signed: string;
  sig: Buffer;
}

function parse(header: string | undefined): ParsedAssertion | undefined {
  if (typeof header !== 'string' || header.length > MAX_HEADER_LENGTH) return undefined;
  const parts = header.split('.');
  if (parts.length !== 8) return undefined;
  const [version, portalId, userPart, visitor, addressPart, tsPart, nonce, sigPart] = parts;
  if (version !== ASSERTION_VERSION || !PORTAL_ID.test(portalId) || !TIMESTAMP.test(tsPart) || !isNonce(nonce)) return undefined;
  const user = userPart === '' ? null : decodeUser(userPart);
  if (user === undefined) return undefined;
  const visitorBytes = base64urlDecode(visitor);
  if (visitorBytes === undefined || visitorBytes.length < 1 || visitorBytes.length > MAX_VISITOR_BYTES) return undefined;
  const address = addressPart === '' ? null : decodeAddress(addressPart);
  if (address === undefined) return undefined;
  const sig = base64urlDecode(sigPart);
  if (sig === undefined || sig.length !== SIG_BYTES) return undefined;
  const ts = Number(tsPart);
  if (!Number.isSafeInteger(ts)) return undefined;
  return { portalId, user, visitor, address, ts, nonce, signed: header.slice(0, header.length - sigPart.length - 1), sig };
}

/** A `contextId/uniqueId` in valid UTF-8, or undefined. */
function decodeUser(encoded: string): PrincipalName | undefined {
  const text = decodeText(encoded);
  return text === undefined ? undefined : parsePrincipalName(text);
}

/** An IP address: it becomes the core's X-Forwarded-For, so nothing else (no list, no CRLF) passes. */
function decodeAddress(encoded: string): string | undefined {
  const text = decodeText(encoded);
  return text !== undefined && isAddress(text) ? text : undefined;
}

function decodeText(encoded: string): string | undefined {
  const bytes = base64urlDecode(encoded);
  if (bytes === undefined || bytes.length === 0) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function isAddress(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_ADDRESS_LENGTH && isIP(value) !== 0;
}

/** HMAC-SHA256(secret, signed + `|` + METHOD + `|` + pathAndQuery), 32 bytes. */
function mac(secret: string, signed: string, method: string, pathAndQuery: string): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${signed}|${method.toUpperCase()}|${pathAndQuery}`, 'utf8')
    .digest();
}

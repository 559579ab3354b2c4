/**
 * The `pending` token of a 401 `otp_required` (SPEC 15): after a correct password, what the second
 * step (`pending` and `otp`) completes. Signed (HMAC-SHA256 under a key derived from the stateless
 * cookies' key, so every core of a Redis-sharing cluster opens it), valid 5 min, bound to the subject,
 * the client and the visitor handle when a gateway named one, and single-use: its nonce is remembered
 * in the session store's replay cache on every core as it is spent, right or wrong code alike.
 * Nothing is kept on the server before that: a flood of password steps grows nothing.
 *
 * `p1.` + base64url(JSON payload) + `.` + base64url(HMAC).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NonceStore } from '../../../common/src/nonce-store';
import type { Principal } from '../sessions/session';

export const PENDING_TTL_SECONDS = 5 * 60;

/** What the password step proved, to be completed by a code. */
export interface PendingLogin {
  principal: Principal;
  clientId: string;
  /** The authenticator that verified the password (the session names it). */
  authenticator: string;
  message?: string;
  /** The gateway's visitor handle, when the login came through one. */
  visitor?: string;
}

interface Payload {
  c: string;
  u: string;
  cl: string;
  a: string;
  m?: string;
  v?: string;
  /** expiry, epoch ms */
  exp: number;
  n: string;
}

const mac = (key: Buffer, body: string) => createHmac('sha256', key).update(`p1.${body}`, 'utf8').digest();

export function sealPending(key: Buffer, pending: PendingLogin, now: number): string {
  const payload: Payload = {
    c: pending.principal.contextId,
    u: pending.principal.uniqueId,
    cl: pending.clientId,
    a: pending.authenticator,
    ...(pending.message === undefined ? {} : { m: pending.message }),
    ...(pending.visitor === undefined ? {} : { v: pending.visitor }),
    exp: now + PENDING_TTL_SECONDS * 1000,
    n: randomBytes(16).toString('base64url'),
  };
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `p1.${body}.${mac(key, body).toString('base64url')}`;
}

/**
 * The pending login of `token`, spent now, when it is ours, fresh, unspent, and of this client (and
 * visitor); else undefined. Nothing of the payload is read before the signature is checked.
 */
export async function spendPending(key: Buffer, token: string, expected: { clientId: string; visitor?: string }, now: number, nonces: NonceStore): Promise<PendingLogin | undefined> {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== 'p1') return undefined;
  const given = Buffer.from(parts[2], 'base64url');
  const wanted = mac(key, parts[1]);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return undefined;
  let payload: Payload;
  try {
    payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Payload;
  } catch {
    return undefined;
  }
  if (payload.exp <= now || payload.cl !== expected.clientId || payload.v !== expected.visitor) return undefined;
  if (!(await nonces.rememberOnce(`otp-pending:${payload.n}`, PENDING_TTL_SECONDS))) return undefined;
  return { principal: { contextId: payload.c, uniqueId: payload.u }, clientId: payload.cl, authenticator: payload.a, message: payload.m, visitor: payload.v };
}

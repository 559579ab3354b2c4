import { randomBytes } from 'node:crypto';
import { mac, sameMac } from './keys';

/**
 * The visitor cookie (SPEC 10.2): a random handle and its expiry, signed, and nothing kept on the
 * server, so a flood of visitors costs no memory. `v1.<handle>.<expires>.<mac>`; the handle is the
 * assertion's `visitor` and keys the visitor's ANON core session at the gateway.
 */
export const VISITOR_COOKIE = 'SVCPORTALVISITOR';
const HANDLE_BYTES = 16;

export class VisitorCookies {
  constructor(
    private readonly key: Buffer,
    /** Seconds a visitor cookie is valid. */
    readonly lifetimeSeconds: number,
  ) {}

  issue(now: number): { value: string; handle: string } {
    const handle = randomBytes(HANDLE_BYTES).toString('base64url');
    const signed = `v1.${handle}.${Math.floor(now / 1000) + this.lifetimeSeconds}`;
    return { value: `${signed}.${mac(this.key, signed).toString('base64url')}`, handle };
  }

  /** The handle of a valid, unexpired cookie, or undefined. */
  read(value: string | undefined, now: number): string | undefined {
    if (typeof value !== 'string' || value.length > 200) return undefined;
    const parts = value.split('.');
    if (parts.length !== 4 || parts[0] !== 'v1' || !/^[A-Za-z0-9_-]{22}$/.test(parts[1]) || !/^\d{1,12}$/.test(parts[2])) return undefined;
    const signed = parts.slice(0, 3).join('.');
    if (!sameMac(mac(this.key, signed), parts[3])) return undefined;
    return Number(parts[2]) * 1000 > now ? parts[1] : undefined;
  }
}

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * The visitor cookie (SPEC 10.2): everything the portal knows of a visitor travels in it, sealed
 * with AES-256-GCM under a key derived from the portal secret, and nothing is kept on the server,
 * so a flood of visitors costs no memory and no visitor can push out another's state. It holds a
 * random handle (the assertion's `visitor`), its expiry, the visitor's gateway state (SPEC 9's
 * `X-Svc-Visitor-State`, the newest the gateway gave) and the visitor's portlet application session
 * (the forgotten-password window's phase, an action's outcome and the refill of a refused form).
 *
 * `v2.<base64url(iv (12) || ciphertext || tag (16))>`, the plaintext being: handle (16 bytes),
 * expiry (unix seconds, 4 bytes big-endian), the gateway state's length (2 bytes) and bytes (the
 * header value base64url-decoded: sealing it again as text would cost a third more), then the
 * application session as JSON (UTF-8; empty when there is none).
 */
export const VISITOR_COOKIE = 'SVCPORTALVISITOR';
/** The whole `Set-Cookie` line of the visitor cookie stays within this (browsers keep 4 096 bytes per cookie). */
export const MAX_VISITOR_COOKIE_LINE = 4000;
const HANDLE_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PREFIX = 'v2.';
const AAD = Buffer.from(`${VISITOR_COOKIE} v2`, 'utf8');
const FIXED_BYTES = HANDLE_BYTES + 4 + 2;

/** The visitor's portlet application session as it travels: JSON values only (Maps as `{"$map": [[k, v], …]}`). */
export interface CarriedSession {
  id: string;
  /** Milliseconds since the epoch. */
  created: number;
  attributes: [string, unknown][];
  containerData: [string, unknown][];
}

export interface VisitorState {
  /** base64url of 16 random bytes. */
  handle: string;
  /** Unix seconds. */
  expires: number;
  /** `X-Svc-Visitor-State` as the gateway gave it, or undefined. */
  gateway: string | undefined;
  session: CarriedSession | undefined;
}

export class VisitorCookies {
  constructor(
    private readonly key: Buffer,
    /** Seconds a visitor cookie is valid from its first issue. */
    readonly lifetimeSeconds: number,
  ) {}

  /** A new visitor: a fresh handle, nothing else. */
  issue(now: number): VisitorState {
    return { handle: randomBytes(HANDLE_BYTES).toString('base64url'), expires: Math.floor(now / 1000) + this.lifetimeSeconds, gateway: undefined, session: undefined };
  }

  /** The plaintext of a state: what is sealed, and what tells whether it changed. */
  plaintext(state: VisitorState): Buffer {
    const gateway = state.gateway === undefined ? Buffer.alloc(0) : Buffer.from(state.gateway, 'base64url');
    if (gateway.length > 0xffff) throw new RangeError('a gateway visitor state over 64 KiB');
    const fixed = Buffer.alloc(FIXED_BYTES);
    Buffer.from(state.handle, 'base64url').copy(fixed, 0);
    fixed.writeUInt32BE(state.expires, HANDLE_BYTES);
    fixed.writeUInt16BE(gateway.length, HANDLE_BYTES + 4);
    const session = state.session === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(state.session, replacer), 'utf8');
    return Buffer.concat([fixed, gateway, session]);
  }

  /** The cookie value of a plaintext. */
  seal(plaintext: Buffer): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(AAD);
    return PREFIX + Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]).toString('base64url');
  }

  /** The length of `seal(plaintext)` without sealing (GCM's ciphertext is as long as its plaintext). */
  sealedLength(plaintextLength: number): number {
    return PREFIX.length + Math.ceil(((IV_BYTES + plaintextLength + TAG_BYTES) * 4) / 3);
  }

  /** The state of a valid, unexpired cookie, or undefined. */
  read(value: string | undefined, now: number): VisitorState | undefined {
    if (typeof value !== 'string' || value.length > 4096 || !value.startsWith(PREFIX) || !/^[A-Za-z0-9_-]+$/.test(value.slice(PREFIX.length))) return undefined;
    const raw = Buffer.from(value.slice(PREFIX.length), 'base64url');
    if (raw.length < IV_BYTES + FIXED_BYTES + TAG_BYTES) return undefined;
    let plaintext: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES)).setAAD(AAD);
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      plaintext = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
    } catch {
      return undefined;
    }
    const expires = plaintext.readUInt32BE(HANDLE_BYTES);
    if (expires * 1000 <= now) return undefined;
    const gatewayLength = plaintext.readUInt16BE(HANDLE_BYTES + 4);
    if (FIXED_BYTES + gatewayLength > plaintext.length) return undefined;
    const gateway = gatewayLength === 0 ? undefined : plaintext.subarray(FIXED_BYTES, FIXED_BYTES + gatewayLength).toString('base64url');
    const rest = plaintext.subarray(FIXED_BYTES + gatewayLength);
    let session: CarriedSession | undefined;
    if (rest.length > 0) {
      try {
        session = JSON.parse(rest.toString('utf8'), reviver) as CarriedSession;
      } catch {
        return undefined; // sealed by us, so never; but a state that does not read is no state
      }
    }
    return { handle: plaintext.subarray(0, HANDLE_BYTES).toString('base64url'), expires, gateway, session };
  }
}

/** Maps (the container's data) as `{"$map": entries}`; everything else as JSON has it. */
function replacer(_key: string, value: unknown): unknown {
  return value instanceof Map ? { $map: [...value] } : value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = (value as { $map?: unknown }).$map;
    if (Array.isArray(entries) && Object.keys(value).length === 1) return new Map(entries as [unknown, unknown][]);
  }
  return value;
}

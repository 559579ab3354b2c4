/**
 * The session structure of the seed's 2.1 (SPEC section 4) as it travels: `{base}/resources/session`,
 * a login's answer, SOAP's getSession, the gateway's `POST /api/login`. Dependency-free on purpose:
 * the client library carries this file.
 */

/** The four session types. */
export const SESSION_TYPES = ['INTERNAL', 'ANON', 'USER', 'SYSTEM'] as const;
export type SessionType = (typeof SESSION_TYPES)[number];

/**
 * The types a session view shows in practice: an INTERNAL session counts as none outside the
 * not-enforced URIs, and no shipped policy lets it read a session.
 */
export type ShownSessionType = Exclude<SessionType, 'INTERNAL'>;
export const SHOWN_SESSION_TYPES: readonly ShownSessionType[] = ['ANON', 'USER', 'SYSTEM'];

/** 0 anonymous, 1 token, header, client principal or certificate, 2 password, 3 password and a second factor (SPEC 15). */
export type AuthenticationLevel = 0 | 1 | 2 | 3;

export interface SessionView {
  /** The session's public handle, never the cookie. */
  uniqueId: string;
  type: SessionType;
  /** Empty for an anonymous session obtained without a client. */
  clientId: string;
  principal: { uniqueId: string; contextId: string } | null;
  level: AuthenticationLevel;
  message: string;
}

/** `body` as a session view when it has that shape (what a core answered), else undefined. */
export function readSessionView(body: unknown): SessionView | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const s = body as Record<string, unknown>;
  const type = SESSION_TYPES.find((known) => known === s.type);
  const level = s.level === 0 || s.level === 1 || s.level === 2 || s.level === 3 ? s.level : undefined;
  if (typeof s.uniqueId !== 'string' || type === undefined || typeof s.clientId !== 'string' || level === undefined) return undefined;
  const p = s.principal as Record<string, unknown> | null | undefined;
  const principal = p && typeof p.contextId === 'string' && typeof p.uniqueId === 'string' ? { uniqueId: p.uniqueId, contextId: p.contextId } : null;
  return { uniqueId: s.uniqueId, type, clientId: s.clientId, principal, level, message: typeof s.message === 'string' ? s.message : '' };
}

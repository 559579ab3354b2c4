import type { AuthenticationLevel, SessionView } from '../../../common/src/wire/session-view';
import type { SessionType } from '../config/types';

export interface Principal {
  uniqueId: string;
  contextId: string;
}

/**
 * A session as the rest of the server sees it (the seed's 2.1). `handle` is the public name
 * (base64url of the first 16 bytes of SHA-256 of the cookie value): it appears in logs and the
 * config area, never the cookie value itself.
 */
export interface Session {
  handle: string;
  type: SessionType;
  clientId: string;
  principal: Principal | null;
  /** 0 anonymous, 1 token, header or client principal, 2 password, 3 password and a second factor (SPEC 15). */
  level: AuthenticationLevel;
  message?: string;
  authenticator: string;
  /** Epoch milliseconds. */
  created: number;
  lastAccess: number;
  /** Flow state (forgotten password): in the signed cookie of a stateless session, in the store otherwise. */
  data?: Record<string, unknown>;
  /** True while the session lives only in its signed cookie (ANON and INTERNAL, SPEC section 4 "Memory"). */
  stateless: boolean;
}

/** The client-visible structure at `{base}/resources/session`. */
export function sessionView(session: Session): SessionView {
  return {
    uniqueId: session.handle,
    type: session.type,
    clientId: session.clientId,
    principal: session.principal ? { uniqueId: session.principal.uniqueId, contextId: session.principal.contextId } : null,
    level: session.level,
    message: session.message ?? '',
  };
}

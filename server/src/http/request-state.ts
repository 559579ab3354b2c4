import type { Asker } from '../policy/decisions';
import type { Session } from '../sessions/session';

/**
 * What belongs to one request beyond its HTTP message: its id (from the request log), then what the
 * `authenticate` step leaves for the steps after it.
 */
export interface RequestState extends Asker {
  id: string;
  /** The peer address (SPEC section 9: a verified X-Svc-Forwarded-For, trustProxy, else the socket's). */
  peer: string;
  session: Session;
  /** The cookie value the response should carry, when it changed. */
  issueCookie?: string;
  /** The request presented a session that was expired, ended or never issued (SPEC section 4). */
  sessionExpired: boolean;
  /** The cookie value of the current session, if any (for logout and flow state). */
  cookieValue?: string;
}

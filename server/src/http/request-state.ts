import type { Session } from '../sessions/session';

/** What the authentication filter leaves on each request for the handlers after it. */
export interface RequestState {
  id: string;
  /** The peer address, after `trustProxy`. */
  peer: string;
  session: Session;
  /** The cookie value the response should carry, when it changed. */
  issueCookie?: string;
  /** The request presented a session that was expired, ended or never issued (SPEC section 4). */
  sessionExpired: boolean;
  /** The cookie value of the current session, if any (for logout and flow state). */
  cookieValue?: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    svc: RequestState;
  }
}

/**
 * The typed results of the client library. The wire is XML, where every value is text; the library
 * converts numbers and booleans back (see decode.ts), so callers never see "25" for a quantity.
 */
import type { CheckAnswer } from '../../common/src/wire/check-answer';
import type { SessionView, ShownSessionType } from '../../common/src/wire/session-view';
import type { SubjectEvent, SubjectEventPage } from '../../common/src/wire/subject-event';
import type { LockoutState, MailPending, OtpState, ReadInclude, ReadIncluded } from '../../common/src/wire/subject-parts';

export type { SubjectEvent, SubjectEventPage, LockoutState, MailPending, OtpState, ReadInclude };

/** The seed's five operations (the check and the policies use the same names). */
export { OPERATIONS, type Operation } from '../../common/src/wire/operations';

/** An attribute value is a string or a list of strings (SPEC section 3). */
export type AttributeValue = string | string[];

export interface Subject {
  uniqueId: string;
  attributes: Record<string, AttributeValue>;
  /** The subject's version as the server's ETag (results only); give it to `update` as `ifMatch`. */
  etag?: string;
}

/** What `get` reads beside the subject, in the same request. */
export interface ReadOptions {
  /**
   * Parts of the subject (`otp`, `mail`, `lockout`, `events`: the newest 20), each added only when the
   * session may READ its own target (`…/{s}/otp`, `…/mail`, `…/lockout`, `…/events`); absent otherwise.
   */
  include?: readonly ReadInclude[];
}

/** A subject as `get` answers it: with the parts asked for in `include` that the session may read. */
export interface SubjectRead extends Subject, ReadIncluded {}

/** For UPDATE: the attributes given replace those attributes; `null` removes one. */
export type AttributeChanges = Record<string, AttributeValue | null>;

export interface SearchQuery {
  /** Free text over the context's search attributes. */
  search?: string;
  /** SCIM filter subset, e.g. `mail ew "@example.com"`. */
  filter?: string;
  /** `uniqueId` (the default) or one of the context's search attributes. */
  sort?: string;
  order?: 'asc' | 'desc';
  offset?: number;
  quantity?: number;
}

export interface SearchPage {
  results: Subject[];
  offset: number;
  quantity: number;
  total: number;
}

/** The session types a session can show (INTERNAL never is). */
export type SessionType = ShownSessionType;

/** The session structure (seed 2.1, SPEC section 4). `uniqueId` is a public handle, not the cookie. */
export interface SessionInfo extends SessionView {
  type: SessionType;
}

export interface ContextInfo {
  id: string;
  /** The client's default context. */
  default: boolean;
}

export type { Decision } from '../../common/src/wire/check-answer';

/** The answer of the check (seed 4.1), and `allowed` for `decision === 'ALLOW'`. */
export interface CheckDecision extends CheckAnswer {
  allowed: boolean;
}

/**
 * The seed's three connection kinds (5.3): anonymous, a trusted client's user principal, user and
 * password; and an X.509 client certificate (SPEC section 13), which names its client itself.
 */
export type ConnectionKind = 'anonymous' | 'principal' | 'password' | 'certificate';

/** SPEC 16: a registration in a context that verifies addresses: the same answer whether the address was new or taken. */
export interface VerificationSent {
  status: 'verification_sent';
}

/** SPEC 16: a subject's address and a change waiting for the link mailed to the new one. */
export interface MailStatus {
  mail: string | null;
  pending: MailPending | null;
}

/**
 * The parts of a subject that have routes of their own under `…/subjects/{s}/` and that a READ may
 * carry beside the subject (svc's `include`): what each route answers, whatever the transport, what
 * the core sends, the client library and the portlets read. Dependency-free on purpose: the client
 * library carries this file.
 */
import type { SubjectEventPage } from './subject-event';

/** `GET …/otp`'s `otp`: whether the subject has a second factor (SPEC 15), never its secret. */
export interface OtpState {
  state: 'none' | 'pending' | 'confirmed';
  recoveryCodesLeft: number;
}

/** SPEC 16: an address change waiting for the link mailed to the new address (`GET …/mail`'s `pending`). */
export interface MailPending {
  mail: string;
  /** ISO 8601. */
  expires: string;
}

/** `GET …/lockout` (SPEC 6): whether the subject is locked now, until when, after how many failures. */
export interface LockoutState {
  locked: boolean;
  /** ISO 8601; null: not locked. */
  lockedUntil: string | null;
  /** The subject's failed attempts within the window, from all addresses. */
  failures: number;
}

/** What a READ's `include` may name, comma-separated: each a part the caller must be allowed to READ on its own. */
export const READ_INCLUDES = ['otp', 'mail', 'lockout', 'events'] as const;
export type ReadInclude = (typeof READ_INCLUDES)[number];

/** `include=events` embeds the newest page of this size: what `GET …/events?offset=0&quantity=20` answers. */
export const INCLUDED_EVENTS = 20;

/**
 * The members a READ's `include` adds beside `"subject"`, each only when the caller may READ its
 * target (`…/{s}/otp`, `…/mail`, `…/lockout`, `…/events`); absent otherwise, never an error.
 */
export interface ReadIncluded {
  /** `include=otp`: GET …/otp's document. */
  otp?: OtpState;
  /** `include=mail`: GET …/mail's `pending` (null: none); absent where svc sends no mail. */
  mailPending?: MailPending | null;
  /** `include=lockout`: GET …/lockout's document. */
  lockout?: LockoutState;
  /** `include=events`: GET …/events?offset=0&quantity={@link INCLUDED_EVENTS}'s document. */
  events?: SubjectEventPage;
}

/**
 * The XML root of a READ with `include`: `<read><subject>…</subject><lockout>…</lockout></read>`, one
 * element whatever was added (as SEARCH's `<search>`); a READ without `include` stays `<subject>`.
 */
export const READ_XML_ROOT = 'read';

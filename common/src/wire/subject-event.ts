/**
 * A subject's events (SPEC 10.4), whatever the transport: what `GET …/subjects/{s}/events` answers,
 * what the subject stores keep, what the client library returns. Dependency-free on purpose: the
 * client library carries this file.
 */

/** An audit event about a subject: what happened, when, by whom, from where. */
export interface SubjectEvent {
  /** ISO 8601. */
  at: string;
  /** The audit event: login, lockout, subject_write, session_end, second_factor. */
  type: string;
  client: string | null;
  /** Who acted (`contextId/uniqueId`), when a principal did. */
  principal: string | null;
  peer: string | null;
  /** The outcome and reason, and the names of the attributes written (never their values). */
  detail: string;
}

/** A page of them, newest first, and how many there are in all. */
export interface SubjectEventPage {
  events: SubjectEvent[];
  total: number;
}

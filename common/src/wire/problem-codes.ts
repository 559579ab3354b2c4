/**
 * Every `code` a svc process can put in a problem document (RFC 9457): the one list. The error
 * hierarchy (common/src/errors.ts) accepts no other code, the client library's `SvcErrorCode` is this
 * list and its own two, and test/wire/problem-codes.test.ts keeps it equal to what the processes
 * emit and to the table in docs/api.md (Errors). A code is never reused for another meaning.
 *
 * Dependency-free on purpose: the client library carries this file.
 */
export const PROBLEM_CODES = [
  'invalid_request',
  'malformed_body',
  'invalid_subject_id',
  'invalid_attributes',
  'attribute_not_writable',
  'invalid_filter',
  'invalid_operation',
  'weak_password',
  /** A mailed link's token (SPEC 16) that is unknown, used or expired. */
  'invalid_token',
  'authentication_required',
  'session_expired',
  /** The session was ended by its subject's password change or reset, disable or delete: never logged in again by itself. */
  'session_revoked',
  'login_failed',
  /** The password was right; the subject's second factor is asked for (SPEC 15): the body carries `pending`. */
  'otp_required',
  'invalid_client',
  'invalid_assertion',
  'access_denied',
  /** Refused only for the session's level (a policy's `minLevel`, SPEC 15): log in with the second factor. */
  'step_up_required',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'not_acceptable',
  'request_timeout',
  'conflict',
  'reload_unavailable',
  'precondition_failed',
  'payload_too_large',
  'unsupported_media_type',
  'too_many_requests',
  'headers_too_large',
  'internal_error',
  /** What svc does not offer (SCIM's /Bulk, /.search, queries at the service root). */
  'not_implemented',
  'bad_gateway',
  'service_unavailable',
  'gateway_timeout',
] as const;

export type ProblemCode = (typeof PROBLEM_CODES)[number];

/** The client library's own codes: failures that came with no problem document from a server. */
export const CLIENT_FAILURE_CODES = [
  /** No HTTP answer: connection refused, reset, timeout. */
  'transport_error',
  /** An answer the library cannot read (not the expected format or shape). */
  'bad_response',
] as const;

export type ClientFailureCode = (typeof CLIENT_FAILURE_CODES)[number];

const KNOWN: ReadonlySet<string> = new Set(PROBLEM_CODES);

/** Whether `code` is one svc sends (a problem relayed from a core, say). */
export function isProblemCode(code: unknown): code is ProblemCode {
  return typeof code === 'string' && KNOWN.has(code);
}

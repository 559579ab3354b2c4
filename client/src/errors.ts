/**
 * Every failure the library reports is an SvcClientError: the HTTP status (0 when no answer came),
 * the server's stable `code`, and the RFC 9457 problem details as the server sent them. Callers
 * either `switch (error.code)` or test the subclass; both are stable.
 *
 * @example
 *   try { await conn.get('nobody'); }
 *   catch (e) { if (e instanceof SvcClientError && e.code === 'not_found') ...; else throw e; }
 */

/** Codes the server sends (common/src/errors.ts) and the two the library adds. */
export type SvcErrorCode =
  | 'invalid_request'
  | 'malformed_body'
  | 'invalid_subject_id'
  | 'invalid_attributes'
  | 'attribute_not_writable'
  | 'invalid_filter'
  | 'invalid_operation'
  | 'weak_password'
  | 'authentication_required'
  | 'session_expired'
  /** The session was ended by its subject's password change or reset, disable or delete: never logged in again by itself. */
  | 'session_revoked'
  | 'login_failed'
  | 'invalid_client'
  | 'access_denied'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'not_acceptable'
  | 'conflict'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'too_many_requests'
  | 'service_unavailable'
  | 'internal_error'
  /** No HTTP answer: connection refused, reset, timeout. */
  | 'transport_error'
  /** An answer the library cannot read (not XML, wrong shape). */
  | 'bad_response';

/** The problem body as received; members beyond these (e.g. `login`, `parameters`) are kept too. */
export interface ProblemInfo {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  errors?: { path: string; message: string }[];
  [member: string]: unknown;
}

export class SvcClientError extends Error {
  readonly status: number;
  /** A known code, or another string from a newer server. */
  readonly code: SvcErrorCode | (string & {});
  readonly problem: ProblemInfo;

  constructor(status: number, code: string, problem: ProblemInfo, options?: { cause?: unknown }) {
    super(problem.detail ?? problem.title ?? code, options);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.problem = problem;
  }
}

/** login_failed or invalid_client: the credentials or the client secret were not accepted. */
export class SvcLoginError extends SvcClientError {}
/** authentication_required or session_expired after the one automatic re-login; session_revoked (no re-login). */
export class SvcSessionError extends SvcClientError {}
/** access_denied (the policy said DENY) or forbidden. */
export class SvcAccessDeniedError extends SvcClientError {}
/** not_found. */
export class SvcNotFoundError extends SvcClientError {}
/** conflict (409) or precondition_failed (412). */
export class SvcConflictError extends SvcClientError {}
/** transport_error or bad_response: no usable answer from the server. */
export class SvcTransportError extends SvcClientError {}

const BY_CODE: Record<string, typeof SvcClientError> = {
  login_failed: SvcLoginError,
  invalid_client: SvcLoginError,
  authentication_required: SvcSessionError,
  session_expired: SvcSessionError,
  session_revoked: SvcSessionError,
  access_denied: SvcAccessDeniedError,
  forbidden: SvcAccessDeniedError,
  not_found: SvcNotFoundError,
  conflict: SvcConflictError,
  precondition_failed: SvcConflictError,
  transport_error: SvcTransportError,
  bad_response: SvcTransportError,
};

/** The error for a problem answer, of the subclass its code names. */
export function errorFromProblem(status: number, problem: ProblemInfo): SvcClientError {
  const code = typeof problem.code === 'string' && problem.code ? problem.code : `http_${status}`;
  const Kind = BY_CODE[code] ?? SvcClientError;
  return new Kind(status, code, problem);
}

/** The library's own failures (no problem body from the server). */
export function clientFailure(code: 'transport_error' | 'bad_response', detail: string, status = 0, cause?: unknown): SvcClientError {
  const Kind = BY_CODE[code];
  return new Kind(status, code, { title: code === 'transport_error' ? 'Transport error' : 'Unreadable response', detail, code }, { cause });
}

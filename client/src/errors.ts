/**
 * Every failure the library reports is an SvcClientError: the HTTP status (0 when no answer came),
 * the server's stable `code`, and the RFC 9457 problem details as the server sent them. Callers
 * either `switch (error.code)` or test the subclass; both are stable.
 *
 * @example
 *   try { await conn.get('nobody'); }
 *   catch (e) { if (e instanceof SvcClientError && e.code === 'not_found') ...; else throw e; }
 */
import { brand, isBranded } from '../../common/src/cross-copy-identity';
import { CLIENT_FAILURE_CODES, PROBLEM_CODES, type ClientFailureCode, type ProblemCode } from '../../common/src/wire/problem-codes';

/** Every code svc's processes send (common/src/wire/problem-codes.ts) and the library's own two. */
export type SvcErrorCode = ProblemCode | ClientFailureCode;

/** The known codes, for a caller that lists or checks them. */
export const SVC_ERROR_CODES: readonly SvcErrorCode[] = [...PROBLEM_CODES, ...CLIENT_FAILURE_CODES];

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
    brand(this, new.target, SvcClientError);
  }

  /** Also an error of another copy of this library (a portlet's @svc/portlet-api beside the portal's): common/src/cross-copy-identity.ts. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isBranded(this, value);
  }
}

/** login_failed or invalid_client: the credentials or the client secret were not accepted; otp_required: a second factor's code is needed. */
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
  otp_required: SvcLoginError,
  authentication_required: SvcSessionError,
  session_expired: SvcSessionError,
  session_revoked: SvcSessionError,
  access_denied: SvcAccessDeniedError,
  step_up_required: SvcAccessDeniedError,
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
export function clientFailure(code: ClientFailureCode, detail: string, status = 0, cause?: unknown): SvcClientError {
  const Kind = BY_CODE[code];
  return new Kind(status, code, { title: code === 'transport_error' ? 'Transport error' : 'Unreadable response', detail, code }, { cause });
}

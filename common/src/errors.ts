/**
 * The one error hierarchy of svc. Every failure that reaches a caller is an SvcError with an HTTP
 * status and a stable snake_case `code`; `problemDetails()` (common/src/problem.ts) is the only
 * place that turns one into an RFC 9457 answer. Codes are never reused for another meaning; every
 * one is in the list of common/src/wire/problem-codes.ts, and the constructor takes no other.
 */
import type { ProblemCode } from './wire/problem-codes';

export interface FieldError {
  path: string;
  message: string;
}

export interface SvcErrorOptions {
  detail?: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
  /** Extra members of the problem body (e.g. the login URL of authentication_required). */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

export class SvcError extends Error {
  readonly status: number;
  readonly code: ProblemCode;
  readonly title: string;
  readonly errors?: FieldError[];
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(status: number, code: ProblemCode, title: string, options: SvcErrorOptions = {}) {
    super(options.detail ?? title, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.title = title;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }

  /** Client errors are shown as they are; server errors are reduced to a plain 500/503 answer. */
  get expose(): boolean {
    return this.status < 500 || (this.status >= 501 && this.status <= 504);
  }
}

const make = (status: number, code: ProblemCode, title: string) =>
  class extends SvcError {
    static readonly code = code;
    constructor(detail?: string, options: Omit<SvcErrorOptions, 'detail'> = {}) {
      super(status, code, title, { ...options, detail });
    }
  };

export class InvalidRequest extends make(400, 'invalid_request', 'Invalid request') {}
export class MalformedBody extends make(400, 'malformed_body', 'Malformed request body') {}
export class InvalidSubjectId extends make(400, 'invalid_subject_id', 'Invalid subject id') {}
export class InvalidAttributes extends make(400, 'invalid_attributes', 'Invalid attributes') {}
export class AttributeNotWritable extends make(400, 'attribute_not_writable', 'Attribute not writable') {}
export class InvalidFilter extends make(400, 'invalid_filter', 'Invalid filter') {}
export class InvalidOperation extends make(400, 'invalid_operation', 'Operation does not fit the resource') {}
export class WeakPassword extends make(400, 'weak_password', 'Password does not meet the policy') {}
/** SPEC 16: a mailed link's token that is unknown, used or expired. */
export class InvalidToken extends make(400, 'invalid_token', 'Invalid or expired link') {}
export class AuthenticationRequired extends make(401, 'authentication_required', 'Authentication required') {}
export class SessionExpired extends make(401, 'session_expired', 'Session expired') {}
/** A session ended by its subject's password change or reset, disable or delete (SPEC section 4): log in again, never renew. */
export class SessionRevoked extends make(401, 'session_revoked', 'Session revoked') {}
export class LoginFailed extends make(401, 'login_failed', 'Login failed') {}
/** SPEC 15: a correct password of a subject with a confirmed second factor; `pending` completes the login with `otp`. */
export class OtpRequired extends SvcError {
  static readonly code = 'otp_required';
  constructor(pending: string) {
    super(401, 'otp_required', 'Second factor required', {
      detail: 'Send the code of your authenticator app (or a recovery code) as otp, with pending.',
      headers: { 'WWW-Authenticate': 'SvcSession realm="svc", error="otp_required"' },
      extensions: { pending },
    });
  }
}
export class InvalidClient extends make(401, 'invalid_client', 'Client validation failed') {}
export class InvalidAssertion extends make(401, 'invalid_assertion', 'Invalid principal assertion') {}
export class Forbidden extends make(403, 'forbidden', 'Forbidden') {}
export class NotFound extends make(404, 'not_found', 'Not found') {}
export class MethodNotAllowed extends make(405, 'method_not_allowed', 'Method not allowed') {}
export class NotAcceptable extends make(406, 'not_acceptable', 'Not acceptable') {}
export class Conflict extends make(409, 'conflict', 'Conflict') {}
/** `POST {base}/config/reload` on a server started without a configuration file. */
export class ReloadUnavailable extends make(409, 'reload_unavailable', 'Reload unavailable') {}
export class PreconditionFailed extends make(412, 'precondition_failed', 'Precondition failed') {}
export class PayloadTooLarge extends make(413, 'payload_too_large', 'Payload too large') {}
export class RequestTimeout extends make(408, 'request_timeout', 'Request timeout') {}
export class HeadersTooLarge extends make(431, 'headers_too_large', 'Request header fields too large') {}
export class UnsupportedMediaType extends make(415, 'unsupported_media_type', 'Unsupported media type') {}
export class TooManyRequests extends make(429, 'too_many_requests', 'Too many requests') {}
/** A request for what svc does not offer (SCIM's /Bulk, /.search, queries at the service root: SPEC 14). */
export class NotImplemented extends make(501, 'not_implemented', 'Not implemented') {}
export class ServiceUnavailable extends make(503, 'service_unavailable', 'Service unavailable') {}
export class BadGateway extends make(502, 'bad_gateway', 'Bad gateway') {}
export class GatewayTimeout extends make(504, 'gateway_timeout', 'Gateway timeout') {}

/**
 * A refusal by the policy decision point. Its status is configurable (`authz.denyStatus`), and when
 * the request arrived with a dead session the code becomes `session_expired` (SPEC section 4).
 */
export class AccessDenied extends SvcError {
  static readonly code = 'access_denied';
  constructor(status: 401 | 403, sessionExpired: boolean, detail?: string) {
    const code = sessionExpired ? 'session_expired' : 'access_denied';
    super(status, code, sessionExpired ? 'Session expired' : 'Access denied', {
      detail,
      headers: {
        'WWW-Authenticate': `SvcSession realm="svc", error="${code}"`,
        'X-Svc-Decision': 'DENY',
      },
    });
  }
}

/**
 * A refusal by the policy decision point for the session's level alone (a policy's `minLevel`, SPEC
 * 15): the same status as any refusal, but it tells the caller what to do.
 */
export class StepUpRequired extends SvcError {
  static readonly code = 'step_up_required';
  constructor(status: 401 | 403, detail = 'This needs a session with your second factor: log in again with your code.') {
    super(status, 'step_up_required', 'Step-up required', {
      detail,
      headers: {
        'WWW-Authenticate': 'SvcSession realm="svc", error="insufficient_user_authentication"',
        'X-Svc-Decision': 'DENY',
      },
    });
  }
}

/**
 * svc's refusals as sentences for a portlet's window (SPEC 10.3): a message at the top, and per
 * field where the core named one. Never a problem document, a status line or a stack trace.
 */
import { SvcClientError, type SvcErrorCode } from '../../gateway-client';
import { labelOf } from './definition';

export interface Failure {
  /** The sentence at the top of the window. */
  message: string;
  /** Field name → sentence shown next to that field. */
  fields: Record<string, string>;
  /** Refused only for want of a second factor's session (step_up_required, SPEC 15): the message comes with a link to the step-up. */
  stepUp?: boolean;
}

export interface FailureWords {
  /** The end of "You are not allowed to …", e.g. "change this password". */
  doing: string;
  /** For 404: what is missing, as a sentence. */
  notFound?: string;
  /** For 409: what is taken, as a sentence. */
  conflict?: string;
  /** For 412: the form is out of date. */
  stale?: string;
  /** For a 400 that names no field of the form, e.g. a wrong current password. */
  invalid?: string;
  /** A core path's last segment → the form's field name (e.g. `password` → `newPassword`). */
  fieldOf?: Record<string, string>;
  /** Field name → label, for the sentences next to fields. */
  labels?: Record<string, string>;
}

export const UNAVAILABLE = 'The service is unavailable; try again.';

const UNAVAILABLE_CODES: ReadonlySet<string> = new Set<SvcErrorCode>(['transport_error', 'bad_response', 'bad_gateway', 'gateway_timeout', 'service_unavailable']);

/** True for a failure the portal should treat as "svc is not reachable now". */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof SvcClientError)) return false;
  const { status, code } = error;
  return status === 0 || status === 502 || status === 503 || status === 504 || UNAVAILABLE_CODES.has(code);
}

/** `is too common` → `Password is too common.` */
function sentence(label: string, message: string): string {
  const text = message.replace(/\.$/, '');
  if (text === 'not writable') return `${label} cannot be changed by you.`;
  if (/^(must|is|are|do|does|cannot|may)\b/.test(text)) return `${label} ${text}.`;
  if (/^(not |longer |required$|at most )/.test(text)) return `${label} is ${text}.`;
  return `${label}: ${text}.`;
}

function fieldErrors(error: SvcClientError, words: FailureWords): Record<string, string> {
  const fields: Record<string, string> = {};
  const errors: unknown = error.problem.errors;
  for (const item of Array.isArray(errors) ? (errors as Array<{ path?: unknown; message?: unknown }>) : []) {
    if (typeof item.path !== 'string' || typeof item.message !== 'string') continue;
    const last = item.path.split('.').pop() ?? item.path;
    const field = words.fieldOf?.[last] ?? last;
    const label = words.labels?.[field] ?? labelOf(field);
    fields[field] = fields[field] ? `${fields[field]} ${sentence(label, item.message)}` : sentence(label, item.message);
  }
  return fields;
}

/** The window's words for a failed call. Anything unexpected becomes a plain sentence, not its details. */
export function describeFailure(error: unknown, words: FailureWords): Failure {
  const failed = `Something went wrong while trying to ${words.doing}; try again.`;
  if (!(error instanceof SvcClientError)) return { message: failed, fields: {} };
  const fields = fieldErrors(error, words);
  const fix = Object.keys(fields).length ? 'Correct the marked fields and send the form again.' : 'Check what you entered and try again.';
  if (isUnavailable(error)) return { message: UNAVAILABLE, fields: {} };
  // Read as a known code so that a misspelt case does not compile; a code from a newer svc reaches default.
  const code = error.code as SvcErrorCode;
  switch (code) {
    case 'step_up_required':
      return { message: `To ${words.doing}, first confirm it is you with your password and the code of your authenticator app.`, fields: {}, stepUp: true };
    case 'access_denied':
    case 'forbidden':
      return { message: `You are not allowed to ${words.doing}.`, fields: {} };
    case 'session_expired':
    case 'authentication_required':
      return { message: 'Your session has ended; log in again.', fields: {} };
    case 'not_found':
      return { message: words.notFound ?? 'It does not exist (any more).', fields: {} };
    case 'conflict':
      return { message: words.conflict ?? 'That name is already taken.', fields };
    case 'precondition_failed':
      return { message: words.stale ?? 'This was changed since the form was shown (was the form sent twice?); nothing was saved.', fields: {} };
    case 'too_many_requests':
      return { message: 'Too many attempts; wait a few minutes and try again.', fields: {} };
    case 'weak_password':
      return { message: 'Choose another password.', fields };
    case 'invalid_filter':
      return { message: 'The filter cannot be used.', fields: Object.keys(fields).length ? fields : { filter: 'Use the SCIM filter form, e.g. mail ew "@example.com".' } };
    case 'invalid_subject_id':
      return { message: 'A name may use letters, digits and . _ @ + - only.', fields };
    case 'invalid_attributes':
    case 'attribute_not_writable':
      return { message: fix, fields };
    case 'invalid_request':
    case 'malformed_body':
      return { message: words.invalid ?? fix, fields };
    default:
      if (error.status >= 400 && error.status < 500) return { message: fix, fields };
      return { message: failed, fields: {} };
  }
}

/**
 * What the check answers (SPEC section 6), whatever the transport: REST's body, SOAP's
 * isAllowedResponse, the client library's `check`. Dependency-free on purpose: the client library
 * carries this file.
 */
import type { Operation } from './operations';
import type { ShownSessionType } from './session-view';

export type Decision = 'ALLOW' | 'DENY';

export interface CheckAnswer {
  decision: Decision;
  operation: Operation;
  /** The policy target, e.g. `contexts/employees/subjects/bob`. */
  resource: string;
  /** An INTERNAL session is answered as ANON. */
  sessionType: ShownSessionType;
  /** The deciding policy for SYSTEM and the target context's admins; `allowed`/`denied` for everyone else. */
  reason: string;
  /** Whether the subject exists: only for a subject, and only to whoever may READ it. */
  exists?: boolean;
}

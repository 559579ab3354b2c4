import { principalName } from '../../../common/src/principal-name';
import type { Core } from '../core';
import { takeSlot } from './attempt-limiter';
import type { Session } from '../sessions/session';
import type { AttributeInput } from '../subjects/attributes';
import type { StoredSubject } from '../subjects/subject';
import { partiesOf } from '../audit';

export interface RegistrationInput {
  contextId: string;
  uniqueId: unknown;
  attributes: AttributeInput;
  session: Session;
  peer: string;
}

/**
 * A registration (SPEC section 7) after authorization: the per-address throttle, then the subject
 * service's CREATE as a registrant (only the context's registration attributes, defaults such as
 * `roles`, reserved ids and taken names refused, the password policy), then the audit line. The
 * same steps as the REST CREATE from an anonymous session (http/rest/subject-handlers.ts).
 *
 * Every attempt takes its slot before anything is checked and keeps it, failed ones too: otherwise
 * clashing attempts (409) would probe which names are taken without limit, and concurrent attempts
 * would all pass a check made before the first of them was recorded.
 */
export async function register(core: Core, input: RegistrationInput): Promise<StoredSubject> {
  await takeSlot(core.registrations, input.peer, 'too many registrations from this address; try again later');
  const created = await core.subjects.create(input.contextId, input.uniqueId, input.attributes, 'registrant');
  core.audit.record({ ...partiesOf(input.session, input.peer), event: 'subject_write', outcome: 'success', reason: 'create', subject: principalName({ contextId: input.contextId, uniqueId: created.uniqueId }), session: input.session.handle, peer: input.peer });
  return created;
}

import { principalName } from '../../../common/src/principal-name';
import { partiesOf, type Audit } from '../audit';
import type { Session } from '../sessions/session';
import type { AttributeInput } from '../subjects/attributes';
import type { StoredSubject } from '../subjects/subject';
import type { SubjectService } from '../subjects/subject-service';
import { takeSlot, type AttemptLimiter } from './attempt-limiter';
import type { EmailFlows, VerificationSent } from '../mail/email-flows';

export interface RegistrationInput {
  contextId: string;
  uniqueId: unknown;
  attributes: AttributeInput;
  session: Session;
  peer: string;
}

/**
 * Registrations (SPEC section 7) after authorization: the per-address throttle, then the subject
 * service's CREATE as a registrant (only the context's registration attributes, defaults such as
 * `roles`, reserved ids and taken names refused, the password policy), then the audit line. The
 * registration page and the REST CREATE from an anonymous session both come here.
 *
 * Every attempt takes its slot before anything is checked and keeps it, failed ones too: otherwise
 * clashing attempts (409) would probe which names are taken without limit, and concurrent attempts
 * would all pass a check made before the first of them was recorded.
 */
export class Registrations {
  /** Registration attempts per address, failed ones too (SPEC section 7). */
  readonly perAddress: AttemptLimiter;

  constructor(private readonly deps: { perAddress: AttemptLimiter; subjects: SubjectService; audit: Audit; email?: () => EmailFlows }) {
    this.perAddress = deps.perAddress;
  }

  /**
   * The subject created, or, in a context that verifies addresses (SPEC 16), VERIFICATION_SENT
   * whether the address was new (an unverified subject and a link) or taken (a notice to its holder).
   */
  async register(input: RegistrationInput): Promise<StoredSubject | VerificationSent> {
    await takeSlot(this.perAddress, input.peer, 'too many registrations from this address; try again later');
    const create = async () => {
      const created = await this.deps.subjects.create(input.contextId, input.uniqueId, input.attributes, 'registrant');
      this.deps.audit.record({ ...partiesOf(input.session, input.peer), event: 'subject_write', outcome: 'success', reason: 'create', subject: principalName({ contextId: input.contextId, uniqueId: created.uniqueId }), session: input.session.handle, peer: input.peer });
      return created;
    };
    const email = this.deps.email?.();
    if (email?.verifies(input.contextId)) return email.register(input.contextId, input.uniqueId, input.attributes, create);
    return create();
  }
}

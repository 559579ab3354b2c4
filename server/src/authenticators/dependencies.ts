import type { SvcConfig } from '../config/types';
import type { Audit } from '../audit';
import type { PasswordHasher } from '../passwords/password-hasher';
import type { SubjectService } from '../subjects/subject-service';

/** What authenticators may use: the subjects, the hasher, the audit trail and the current config. */
export interface AuthenticatorDependencies {
  subjects: SubjectService;
  hasher: PasswordHasher;
  audit: Audit;
  config: () => SvcConfig;
}

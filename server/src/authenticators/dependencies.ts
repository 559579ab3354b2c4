import type { SvcConfig } from '../config/types';
import type { Audit } from '../audit';
import type { PasswordHasher } from '../passwords/password-hasher';
import type { SubjectService } from '../subjects/subject-service';

/** What authenticators may use: the subjects, the hasher, the audit trail, the current config and the clock. */
export interface AuthenticatorDependencies {
  subjects: SubjectService;
  hasher: PasswordHasher;
  audit: Audit;
  config: () => SvcConfig;
  /** Epoch milliseconds (token expiry); the core's injectable clock. Default Date.now. */
  now?: () => number;
}
